/** Glossar module: glossary entries. */
import type { Knex } from 'knex';
import { recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('glossar_entry', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').notNullable();
    t.string('synonyms', 500).nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
    t.boolean('trashed').notNullable().defaultTo(false).index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('glossar_entry');
}
