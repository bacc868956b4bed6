/** Issue module: trackers, categories, issues and their links. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('issue_tracker', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'approved', 'archived']).notNullable().defaultTo('draft').index();
    t.enu('visibility', ['normal', 'protected', 'confidential']).notNullable().defaultTo('normal').index();
    t.boolean('public_form').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'issue_tracker_admins', { column: 'tracker_id', table: 'issue_tracker' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'issue_tracker_teams', { column: 'tracker_id', table: 'issue_tracker' }, { column: 'group_id', table: 'groups' });

  await knex.schema.createTable('issue_category', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.string('color', 50).nullable();
    foreignKey(t, 'tracker_id', 'issue_tracker', 'cascade', true);
  });

  await knex.schema.createTable('issue_issue', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable();
    t.text('description').nullable();
    t.enu('state', ['new', 'pending', 'accepted', 'active', 'effectiveness_check', 'resolved', 'rejected'])
      .notNullable()
      .defaultTo('new')
      .index();
    t.date('deadline').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'tracker_id', 'issue_tracker', 'protect', true);
    foreignKey(t, 'assigned_user_id', 'users', 'set null');
  });
  await joinTable(knex, 'issue_issue_categories', { column: 'issue_id', table: 'issue_issue' }, { column: 'category_id', table: 'issue_category' });
  await joinTable(knex, 'issue_issue_contributors', { column: 'issue_id', table: 'issue_issue' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'issue_issue_processes', { column: 'issue_id', table: 'issue_issue' }, { column: 'process_id', table: 'process_process' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['issue_issue_processes', 'issue_issue_contributors', 'issue_issue_categories', 'issue_issue', 'issue_category', 'issue_tracker_teams', 'issue_tracker_admins', 'issue_tracker']) {
    await knex.schema.dropTable(table);
  }
}
