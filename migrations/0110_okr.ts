/** OKR module: systems, periods, objectives, key results and updates. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const GOAL_STATES = ['draft', 'released', 'in_progress', 'completed', 'cancelled'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('okr_system', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.enu('type', ['okr', 'management_review']).notNullable().defaultTo('okr').index();
    t.text('vision').nullable();
    t.text('mission').nullable();
    t.text('strategy').nullable();
    t.text('north_star').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
  });
  await joinTable(knex, 'okr_system_owners', { column: 'system_id', table: 'okr_system' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('okr_period', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.date('start').notNullable().index();
    t.date('end').notNullable().index();
    t.enu('state', ['planning', 'in_progress', 'done']).notNullable().defaultTo('planning').index();
    foreignKey(t, 'system_id', 'okr_system', 'cascade', true);
  });

  await knex.schema.createTable('okr_objective', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', GOAL_STATES).notNullable().defaultTo('draft').index();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'period_id', 'okr_period', 'cascade', true);
  });
  await joinTable(knex, 'okr_objective_responsible_users', { column: 'objective_id', table: 'okr_objective' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'okr_objective_processes', { column: 'objective_id', table: 'okr_objective' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'okr_objective_kpis', { column: 'objective_id', table: 'okr_objective' }, { column: 'kpi_id', table: 'kpi_kpi' });

  await knex.schema.createTable('okr_result', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.string('unit', 50).nullable();
    t.decimal('start_value', 18, 4).nullable();
    t.decimal('target_value', 18, 4).nullable();
    t.decimal('current_value', 18, 4).nullable();
    t.integer('progress').notNullable().defaultTo(0);
    t.decimal('estimated_budget', 14, 2).nullable();
    t.decimal('estimated_effort', 10, 2).nullable();
    t.enu('state', GOAL_STATES).notNullable().defaultTo('draft').index();
    foreignKey(t, 'objective_id', 'okr_objective', 'cascade', true);
  });
  await joinTable(knex, 'okr_result_responsible_users', { column: 'result_id', table: 'okr_result' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('okr_update', (t) => {
    recordColumns(knex, t);
    t.date('date').notNullable().index();
    t.decimal('value', 18, 4).nullable();
    t.integer('progress').notNullable();
    t.enu('rating', ['green', 'orange', 'red']).nullable().index();
    t.enu('trend', ['positive', 'stable', 'negative']).nullable().index();
    t.text('comment').nullable();
    foreignKey(t, 'result_id', 'okr_result', 'cascade', true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'okr_update',
    'okr_result_responsible_users',
    'okr_result',
    'okr_objective_kpis',
    'okr_objective_processes',
    'okr_objective_responsible_users',
    'okr_objective',
    'okr_period',
    'okr_system_owners',
    'okr_system',
  ]) {
    await knex.schema.dropTable(table);
  }
}
