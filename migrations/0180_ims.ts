/** IMS module: management systems, asset categories and assets. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ims_system', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'ims_system_admins', { column: 'system_id', table: 'ims_system' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'ims_system_team_members', { column: 'system_id', table: 'ims_system' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'ims_system_standards', { column: 'system_id', table: 'ims_system' }, { column: 'standard_id', table: 'standards_standard' });
  await joinTable(knex, 'ims_system_trackers', { column: 'system_id', table: 'ims_system' }, { column: 'tracker_id', table: 'issue_tracker' });

  await knex.schema.createTable('ims_assetcategory', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'system_id', 'ims_system', 'cascade', true);
  });

  await knex.schema.createTable('ims_asset', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.text('cause').nullable();
    t.text('possible_measures').nullable();
    t.string('location', 255).nullable();
    t.decimal('value', 14, 2).nullable();
    t.enu('influence', ['none', 'indirect', 'direct']).notNullable().defaultTo('none').index();
    t.boolean('in_scope').notNullable().defaultTo(true).index();
    t.enu('state', ['planned', 'in_use', 'in_maintenance', 'retired', 'disposed']).notNullable().defaultTo('in_use').index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'system_id', 'ims_system', 'protect', true);
    foreignKey(t, 'parent_id', 'ims_asset', 'cascade');
    foreignKey(t, 'owner_id', 'users', 'set null');
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
  });
  await joinTable(knex, 'ims_asset_categories', { column: 'asset_id', table: 'ims_asset' }, { column: 'assetcategory_id', table: 'ims_assetcategory' });
  await joinTable(knex, 'ims_asset_processes', { column: 'asset_id', table: 'ims_asset' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'ims_asset_estimates', { column: 'asset_id', table: 'ims_asset' }, { column: 'estimate_id', table: 'swot_estimate' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'ims_asset_estimates',
    'ims_asset_processes',
    'ims_asset_categories',
    'ims_asset',
    'ims_assetcategory',
    'ims_system_trackers',
    'ims_system_standards',
    'ims_system_team_members',
    'ims_system_admins',
    'ims_system',
  ]) {
    await knex.schema.dropTable(table);
  }
}
