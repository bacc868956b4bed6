/** Businesscontext module: interested parties, issue types and context issues. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const SCALE = ['none', 'small', 'medium', 'large'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('businesscontext_interestedparty', (t) => {
    recordColumns(knex, t);
    t.string('name', 255).notNullable().index();
    t.text('description').notNullable();
    t.enu('interest', SCALE).notNullable().defaultTo('none').index();
    t.enu('influence', SCALE).notNullable().defaultTo('none').index();
    t.integer('list_order').notNullable().defaultTo(0).index();
  });
  await joinTable(knex, 'businesscontext_interestedparty_responsible_functions', { column: 'interestedparty_id', table: 'businesscontext_interestedparty' }, { column: 'function_id', table: 'organisation_funktionen' });
  await joinTable(knex, 'businesscontext_interestedparty_processes', { column: 'interestedparty_id', table: 'businesscontext_interestedparty' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'businesscontext_interestedparty_estimates', { column: 'interestedparty_id', table: 'businesscontext_interestedparty' }, { column: 'estimate_id', table: 'swot_estimate' });

  await knex.schema.createTable('businesscontext_issuetype', (t) => {
    recordColumns(knex, t);
    t.string('name', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('businesscontext_issue', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('kind', ['internal', 'external']).notNullable().index();
    t.integer('list_order').notNullable().defaultTo(0).index();
    foreignKey(t, 'type_id', 'businesscontext_issuetype', 'protect', true);
    foreignKey(t, 'party_id', 'businesscontext_interestedparty', 'set null');
  });
  await joinTable(knex, 'businesscontext_issue_responsible_functions', { column: 'issue_id', table: 'businesscontext_issue' }, { column: 'function_id', table: 'organisation_funktionen' });
  await joinTable(knex, 'businesscontext_issue_processes', { column: 'issue_id', table: 'businesscontext_issue' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'businesscontext_issue_estimates', { column: 'issue_id', table: 'businesscontext_issue' }, { column: 'estimate_id', table: 'swot_estimate' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'businesscontext_issue_estimates',
    'businesscontext_issue_processes',
    'businesscontext_issue_responsible_functions',
    'businesscontext_issue',
    'businesscontext_issuetype',
    'businesscontext_interestedparty_estimates',
    'businesscontext_interestedparty_processes',
    'businesscontext_interestedparty_responsible_functions',
    'businesscontext_interestedparty',
  ]) {
    await knex.schema.dropTable(table);
  }
}
