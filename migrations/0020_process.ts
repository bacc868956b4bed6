/** Process module: periodicities, labels, tools, processes and their steps. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  // lookups first: processes and steps point at them
  await knex.schema.createTable('process_periodizitaet', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('interval_months').nullable();
  });

  await knex.schema.createTable('process_label', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.string('color', 50).nullable();
  });

  await knex.schema.createTable('process_hilfsmittelart', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('process_hilfsmittel', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.string('location', 255).nullable();
    t.string('url', 500).nullable();
    foreignKey(t, 'type_id', 'process_hilfsmittelart', 'set null');
  });
  await joinTable(knex, 'process_hilfsmittel_responsible_users', { column: 'hilfsmittel_id', table: 'process_hilfsmittel' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('process_process', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived']).notNullable().defaultTo('draft').index();
    t.date('valid_from').nullable().index();
    t.date('valid_to').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'parent_id', 'process_process', 'cascade');
    foreignKey(t, 'owner_id', 'users', 'set null');
    foreignKey(t, 'deputy_owner_id', 'users', 'set null');
    foreignKey(t, 'periodicity_id', 'process_periodizitaet', 'set null');
  });
  await joinTable(knex, 'process_process_labels', { column: 'process_id', table: 'process_process' }, { column: 'label_id', table: 'process_label' });
  await joinTable(knex, 'process_process_tools', { column: 'process_id', table: 'process_process' }, { column: 'hilfsmittel_id', table: 'process_hilfsmittel' });

  await knex.schema.createTable('process_processsteps', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('text').nullable();
    t.text('result').nullable();
    t.integer('order').notNullable().defaultTo(0);
    t.string('bpmn_element_id', 255).nullable();
    foreignKey(t, 'process_id', 'process_process', 'cascade', true);
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'responsible_user_id', 'users', 'set null');
    foreignKey(t, 'periodicity_id', 'process_periodizitaet', 'set null');
  });
  await joinTable(knex, 'process_processsteps_tools', { column: 'processstep_id', table: 'process_processsteps' }, { column: 'hilfsmittel_id', table: 'process_hilfsmittel' });
  await joinTable(knex, 'process_processsteps_labels', { column: 'processstep_id', table: 'process_processsteps' }, { column: 'label_id', table: 'process_label' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'process_processsteps_labels',
    'process_processsteps_tools',
    'process_processsteps',
    'process_process_tools',
    'process_process_labels',
    'process_process',
    'process_hilfsmittel_responsible_users',
    'process_hilfsmittel',
    'process_hilfsmittelart',
    'process_label',
    'process_periodizitaet',
  ]) {
    await knex.schema.dropTable(table);
  }
}
