/** Users, groups, API tokens and the state-change log every resource writes to. */
import type { Knex } from 'knex';
import { joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    recordColumns(knex, t);
    t.string('username', 150).notNullable().unique();
    t.string('email', 254).nullable();
    t.string('first_name', 150).nullable();
    t.string('last_name', 150).nullable();
    t.boolean('is_active').notNullable().defaultTo(true).index();
    t.boolean('is_superuser').notNullable().defaultTo(false).index();
    // null: the user cannot sign in with a password
    t.string('password', 255).nullable();
    t.timestamp('last_login', { useTz: true, precision: 3 }).nullable();
  });
  await knex.schema.createTable('groups', (t) => {
    recordColumns(knex, t);
    t.string('name', 150).notNullable().unique();
    t.specificType('permissions', 'text[]').notNullable().defaultTo('{}');
  });
  await joinTable(knex, 'users_groups', { column: 'user_id', table: 'users' }, { column: 'group_id', table: 'groups' });

  await knex.schema.createTable('api_tokens', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    t.string('name', 100).notNullable();
    // SHA-256 of the key, hex; the key itself is never stored
    t.string('key_hash', 64).notNullable().unique();
    t.timestamp('created', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used', { useTz: true, precision: 3 }).nullable();
    t.timestamp('expires', { useTz: true, precision: 3 }).nullable();
  });

  await knex.schema.createTable('state_changes', (t) => {
    t.bigIncrements('id').primary();
    t.string('resource', 100).notNullable();
    t.integer('record_id').notNullable();
    t.string('field', 63).notNullable();
    t.string('from_state', 50).nullable();
    t.string('to_state', 50).notNullable();
    t.integer('changed_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.timestamp('changed_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.index(['resource', 'record_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['state_changes', 'api_tokens', 'users_groups', 'groups', 'users']) {
    await knex.schema.dropTable(table);
  }
}
