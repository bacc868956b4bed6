/** SWOT module: estimates, measures and controls. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('swot_estimate', (t) => {
    recordColumns(knex, t);
    t.enu('kind', ['strength', 'weakness', 'opportunity', 'threat']).notNullable().index();
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.text('cause').nullable();
    t.text('possible_measures').nullable();
    t.integer('probability').notNullable();
    t.integer('impact').notNullable();
    t.enu('status', ['active', 'in_progress', 'accepted', 'closed', 'postponed', 'archived']).notNullable().defaultTo('active').index();
    t.date('recorded_on').nullable().index();
    foreignKey(t, 'recorded_by_id', 'users', 'set null');
  });
  await joinTable(knex, 'swot_estimate_processes', { column: 'estimate_id', table: 'swot_estimate' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'swot_estimate_responsible_functions', { column: 'estimate_id', table: 'swot_estimate' }, { column: 'function_id', table: 'organisation_funktionen' });

  await knex.schema.createTable('swot_measure', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.date('deadline').nullable().index();
    t.integer('periodicity').nullable();
    t.enu('status', ['planned', 'running', 'in_progress', 'completed', 'postponed']).notNullable().defaultTo('planned').index();
    foreignKey(t, 'estimate_id', 'swot_estimate', 'set null');
    foreignKey(t, 'responsible_person_id', 'users', 'set null');
    foreignKey(t, 'controlling_person_id', 'users', 'set null');
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'controlling_function_id', 'organisation_funktionen', 'set null');
  });

  await knex.schema.createTable('swot_control', (t) => {
    recordColumns(knex, t);
    t.date('date').notNullable().index();
    t.text('comment').nullable();
    t.enu('status', ['in_progress', 'done', 'rejected', 'done_with_defects']).notNullable().defaultTo('in_progress').index();
    foreignKey(t, 'measure_id', 'swot_measure', 'protect', true);
    foreignKey(t, 'control_person_id', 'users', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['swot_control', 'swot_measure', 'swot_estimate_responsible_functions', 'swot_estimate_processes', 'swot_estimate']) {
    await knex.schema.dropTable(table);
  }
}
