/** Bot module: AI models, chat spaces, chats, entries and context checks. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bot_aimodel', (t) => {
    recordColumns(knex, t);
    t.string('name', 255).notNullable().index();
    t.string('provider', 100).notNullable().index();
    t.integer('context_window').notNullable();
    t.boolean('supports_web_search').notNullable().defaultTo(false).index();
    t.boolean('is_default').notNullable().defaultTo(false).index();
    t.boolean('active').notNullable().defaultTo(true).index();
  });

  await knex.schema.createTable('bot_chatspace', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    foreignKey(t, 'default_model_id', 'bot_aimodel', 'set null');
  });
  await joinTable(knex, 'bot_chatspace_admins', { column: 'chatspace_id', table: 'bot_chatspace' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'bot_chatspace_members', { column: 'chatspace_id', table: 'bot_chatspace' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('bot_chat', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.decimal('temperature', 3, 2).notNullable().defaultTo('1.00');
    t.boolean('web_search').notNullable().defaultTo(false).index();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    t.boolean('is_template').notNullable().defaultTo(false).index();
    t.text('system_role').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'aimodel_id', 'bot_aimodel', 'set null');
    foreignKey(t, 'chatspace_id', 'bot_chatspace', 'set null');
  });
  await joinTable(knex, 'bot_chat_contributors', { column: 'chat_id', table: 'bot_chat' }, { column: 'user_id', table: 'users' });
  // chatspace and chat point at each other, so this key is added once bot_chat exists
  await knex.schema.alterTable('bot_chatspace', (t) => {
    foreignKey(t, 'default_template_id', 'bot_chat', 'set null');
  });

  await knex.schema.createTable('bot_entry', (t) => {
    recordColumns(knex, t);
    t.enu('role', ['user', 'assistant', 'system']).notNullable().index();
    t.text('content').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    foreignKey(t, 'chat_id', 'bot_chat', 'cascade', true);
    foreignKey(t, 'aimodel_id', 'bot_aimodel', 'set null');
  });

  await knex.schema.createTable('bot_context_check', (t) => {
    recordColumns(knex, t);
    t.text('content').notNullable();
    t.integer('token_count').nullable();
    t.boolean('fits').notNullable().defaultTo(false).index();
    t.string('message', 255).nullable();
    foreignKey(t, 'aimodel_id', 'bot_aimodel', 'cascade', true);
    foreignKey(t, 'chat_id', 'bot_chat', 'cascade');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bot_context_check');
  await knex.schema.dropTable('bot_entry');
  await knex.schema.alterTable('bot_chatspace', (t) => {
    t.dropColumn('default_template_id');
  });
  for (const table of ['bot_chat_contributors', 'bot_chat', 'bot_chatspace_members', 'bot_chatspace_admins', 'bot_chatspace', 'bot_aimodel']) {
    await knex.schema.dropTable(table);
  }
}
