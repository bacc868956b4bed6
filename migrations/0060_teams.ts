/** Teams module: spaces, boards, lists, labels, cards, meetings and meeting items. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const TIMESTAMP = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams_space', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['public', 'protected']).notNullable().defaultTo('protected').index();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'teams_space_members', { column: 'space_id', table: 'teams_space' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'teams_space_admins', { column: 'space_id', table: 'teams_space' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('teams_board', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('display_mode', ['kanban', 'list']).notNullable().defaultTo('kanban').index();
    t.enu('status', ['in_progress', 'done', 'template']).notNullable().defaultTo('in_progress').index();
    t.boolean('inherit_permissions').notNullable().defaultTo(true).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'space_id', 'teams_space', 'cascade', true);
    foreignKey(t, 'process_id', 'process_process', 'set null');
    foreignKey(t, 'issue_id', 'issue_issue', 'set null');
    foreignKey(t, 'project_id', 'projects_project', 'set null');
  });

  await knex.schema.createTable('teams_list', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.enu('target_state', ['new', 'selected', 'doing', 'wait', 'done', 'cancelled']).notNullable().defaultTo('new').index();
    t.boolean('archive_incoming_cards').notNullable().defaultTo(false).index();
    t.integer('position').notNullable().defaultTo(0);
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'board_id', 'teams_board', 'cascade', true);
  });

  await knex.schema.createTable('teams_label', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.string('color', 50).nullable();
    t.text('description').nullable();
    foreignKey(t, 'board_id', 'teams_board', 'cascade', true);
  });

  await knex.schema.createTable('teams_card', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'new', 'selected', 'doing', 'wait', 'done', 'cancelled', 'template']).notNullable().defaultTo('new').index();
    t.date('deadline').nullable().index();
    t.string('external_url', 500).nullable();
    t.integer('position').notNullable().defaultTo(0);
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'list_id', 'teams_list', 'cascade', true);
  });
  await joinTable(knex, 'teams_card_assignees', { column: 'card_id', table: 'teams_card' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'teams_card_labels', { column: 'card_id', table: 'teams_card' }, { column: 'label_id', table: 'teams_label' });

  await knex.schema.createTable('teams_meeting', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.string('number', 50).nullable();
    t.text('description').nullable();
    t.timestamp('start', TIMESTAMP).notNullable();
    t.timestamp('end', TIMESTAMP).nullable();
    t.string('location', 255).nullable();
    t.text('guests').nullable();
    t.enu('status', ['planned', 'prepared', 'closed', 'template']).notNullable().defaultTo('planned').index();
    foreignKey(t, 'space_id', 'teams_space', 'cascade', true);
    t.index(['start']);
  });
  await joinTable(knex, 'teams_meeting_participants', { column: 'meeting_id', table: 'teams_meeting' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('teams_meetingitem', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.string('number', 50).nullable();
    t.text('text').nullable();
    t.text('result').nullable();
    t.text('decision').nullable();
    t.integer('list_order').notNullable().defaultTo(0);
    foreignKey(t, 'meeting_id', 'teams_meeting', 'cascade', true);
    foreignKey(t, 'parent_id', 'teams_meetingitem', 'cascade');
    foreignKey(t, 'owner_id', 'users', 'set null');
  });
  await joinTable(knex, 'teams_meetingitem_contributors', { column: 'meetingitem_id', table: 'teams_meetingitem' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'teams_meetingitem_cards', { column: 'meetingitem_id', table: 'teams_meetingitem' }, { column: 'card_id', table: 'teams_card' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'teams_meetingitem_cards',
    'teams_meetingitem_contributors',
    'teams_meetingitem',
    'teams_meeting_participants',
    'teams_meeting',
    'teams_card_labels',
    'teams_card_assignees',
    'teams_card',
    'teams_label',
    'teams_list',
    'teams_board',
    'teams_space_admins',
    'teams_space_members',
    'teams_space',
  ]) {
    await knex.schema.dropTable(table);
  }
}
