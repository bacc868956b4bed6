/** KPI module: folders, KPIs and measurements. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const RATING = ['green', 'orange', 'red'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kpi_folder', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
  });
  await joinTable(knex, 'kpi_folder_admins', { column: 'folder_id', table: 'kpi_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'kpi_folder_team_members', { column: 'folder_id', table: 'kpi_folder' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('kpi_kpi', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.string('unit', 50).nullable();
    t.decimal('target_value', 18, 4).nullable();
    t.enu('direction', ['higher_is_better', 'lower_is_better']).notNullable().defaultTo('higher_is_better').index();
    t.enu('rating', RATING).nullable().index();
    t.text('rating_comment').nullable();
    t.date('next_measurement').nullable().index();
    t.boolean('show_chart').notNullable().defaultTo(true).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'folder_id', 'kpi_folder', 'protect');
    foreignKey(t, 'owner_id', 'users', 'set null');
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'periodicity_id', 'process_periodizitaet', 'set null');
  });
  await joinTable(knex, 'kpi_kpi_processes', { column: 'kpi_id', table: 'kpi_kpi' }, { column: 'process_id', table: 'process_process' });

  await knex.schema.createTable('kpi_measurement', (t) => {
    recordColumns(knex, t);
    t.date('date').notNullable().index();
    t.decimal('value', 18, 4).notNullable();
    t.decimal('target_value', 18, 4).nullable();
    t.enu('rating', RATING).nullable().index();
    t.enu('trend', ['trending_up', 'trending_flat', 'trending_down']).nullable().index();
    t.text('description').nullable();
    foreignKey(t, 'kpi_id', 'kpi_kpi', 'cascade', true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['kpi_measurement', 'kpi_kpi_processes', 'kpi_kpi', 'kpi_folder_team_members', 'kpi_folder_admins', 'kpi_folder']) {
    await knex.schema.dropTable(table);
  }
}
