/** Standards module: categories, standards and their chapter trees. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('standards_category', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('order').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('standards_standard', (t) => {
    recordColumns(knex, t);
    t.string('abbreviation', 50).nullable().index();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.date('valid_from').nullable().index();
    t.date('valid_to').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'standards_standard_categories', { column: 'standard_id', table: 'standards_standard' }, { column: 'category_id', table: 'standards_category' });

  await knex.schema.createTable('standards_chapter', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.text('required_evidence').nullable();
    t.boolean('fulfilment_required').notNullable().defaultTo(true).index();
    t.integer('compliance').notNullable().defaultTo(0);
    t.text('fulfilled_by').nullable();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'standard_id', 'standards_standard', 'cascade', true);
    foreignKey(t, 'parent_id', 'standards_chapter', 'cascade');
  });
  await joinTable(knex, 'standards_chapter_processes', { column: 'chapter_id', table: 'standards_chapter' }, { column: 'process_id', table: 'process_process' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'standards_chapter_processes',
    'standards_chapter',
    'standards_standard_categories',
    'standards_standard',
    'standards_category',
  ]) {
    await knex.schema.dropTable(table);
  }
}
