/** Stream module: channels, messages, events and participants. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stream_stream', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    t.enu('subscription_mode', ['fixed', 'opt_in', 'mandatory_for_targeted']).notNullable().defaultTo('opt_in').index();
    t.boolean('allow_comments').notNullable().defaultTo(true).index();
    t.boolean('allow_likes').notNullable().defaultTo(true).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'stream_stream_admins', { column: 'stream_id', table: 'stream_stream' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'stream_stream_team_members', { column: 'stream_id', table: 'stream_stream' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'stream_stream_groups', { column: 'stream_id', table: 'stream_stream' }, { column: 'group_id', table: 'groups' });

  await knex.schema.createTable('stream_messages', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).nullable().index();
    t.text('text').notNullable();
    t.timestamp('publish_at', { useTz: true, precision: 3 }).nullable().index();
    t.boolean('allow_comments').notNullable().defaultTo(true).index();
    t.boolean('allow_likes').notNullable().defaultTo(true).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'stream_id', 'stream_stream', 'cascade', true);
  });

  await knex.schema.createTable('stream_event', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('text').nullable();
    t.timestamp('start', { useTz: true, precision: 3 }).notNullable().index();
    t.timestamp('end', { useTz: true, precision: 3 }).notNullable().index();
    t.boolean('all_day').notNullable().defaultTo(false).index();
    t.timestamp('publish_at', { useTz: true, precision: 3 }).notNullable().index();
    t.string('location', 255).nullable();
    t.string('location_url', 500).nullable();
    t.integer('min_participants').nullable();
    t.integer('max_participants').nullable();
    t.timestamp('registration_deadline', { useTz: true, precision: 3 }).nullable();
    t.boolean('self_registration').notNullable().defaultTo(false).index();
    t.boolean('signature_required').notNullable().defaultTo(false).index();
    t.boolean('participants_public').notNullable().defaultTo(true).index();
    t.boolean('pinned').notNullable().defaultTo(false).index();
    foreignKey(t, 'stream_id', 'stream_stream', 'protect', true);
  });
  await joinTable(knex, 'stream_event_admins', { column: 'event_id', table: 'stream_event' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'stream_event_attendance_checkers', { column: 'event_id', table: 'stream_event' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('stream_participant', (t) => {
    recordColumns(knex, t);
    t.enu('status', ['invited', 'accepted', 'waitlist', 'declined']).notNullable().defaultTo('invited').index();
    t.boolean('attended').notNullable().defaultTo(false).index();
    t.timestamp('checked_in_at', { useTz: true, precision: 3 }).nullable();
    t.text('note').nullable();
    foreignKey(t, 'event_id', 'stream_event', 'cascade', true);
    foreignKey(t, 'user_id', 'users', 'cascade', true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'stream_participant',
    'stream_event_attendance_checkers',
    'stream_event_admins',
    'stream_event',
    'stream_messages',
    'stream_stream_groups',
    'stream_stream_team_members',
    'stream_stream_admins',
    'stream_stream',
  ]) {
    await knex.schema.dropTable(table);
  }
}
