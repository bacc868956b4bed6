/** Forms module: folders, templates, sections, questions, choices and filled-in forms. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('forms_folder', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['public', 'protected', 'private']).notNullable().defaultTo('public').index();
    t.boolean('inherit_permissions').notNullable().defaultTo(false).index();
    foreignKey(t, 'parent_id', 'forms_folder', 'cascade');
  });
  await joinTable(knex, 'forms_folder_admins', { column: 'folder_id', table: 'forms_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'forms_folder_team_members', { column: 'folder_id', table: 'forms_folder' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('forms_template', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('mode', ['form', 'test', 'quiz', 'checklist', 'vote']).notNullable().defaultTo('form').index();
    t.boolean('public_form').notNullable().defaultTo(false).index();
    t.boolean('allow_anonymous').notNullable().defaultTo(false).index();
    t.boolean('allow_multiple_submissions').notNullable().defaultTo(false).index();
    t.integer('pass_threshold').nullable();
    t.integer('time_limit').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'folder_id', 'forms_folder', 'protect', true);
  });
  await joinTable(knex, 'forms_template_labels', { column: 'template_id', table: 'forms_template' }, { column: 'label_id', table: 'process_label' });

  await knex.schema.createTable('forms_section', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'template_id', 'forms_template', 'cascade', true);
  });

  await knex.schema.createTable('forms_question', (t) => {
    recordColumns(knex, t);
    t.text('text').notNullable();
    t.text('help_text').nullable();
    t.enu('type', ['text', 'number', 'choice', 'date']).notNullable().defaultTo('text').index();
    t.boolean('multiple').notNullable().defaultTo(false).index();
    t.boolean('required').notNullable().defaultTo(false).index();
    t.boolean('admin_only').notNullable().defaultTo(false).index();
    t.integer('order').notNullable().defaultTo(0);
    t.integer('points').nullable();
    foreignKey(t, 'template_id', 'forms_template', 'cascade', true);
    foreignKey(t, 'section_id', 'forms_section', 'set null');
  });

  await knex.schema.createTable('forms_choice', (t) => {
    recordColumns(knex, t);
    t.string('label', 255).notNullable().index();
    t.string('value', 255).notNullable();
    t.integer('order').notNullable().defaultTo(0);
    t.boolean('is_correct').notNullable().defaultTo(false).index();
    foreignKey(t, 'question_id', 'forms_question', 'cascade', true);
  });

  await knex.schema.createTable('forms_form', (t) => {
    recordColumns(knex, t);
    t.jsonb('answers').notNullable().defaultTo('{}');
    t.integer('progress').notNullable().defaultTo(0);
    t.enu('state', ['draft', 'submitted', 'needs_revision', 'completed']).notNullable().defaultTo('draft').index();
    foreignKey(t, 'template_id', 'forms_template', 'protect', true);
    foreignKey(t, 'user_id', 'users', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'forms_form',
    'forms_choice',
    'forms_question',
    'forms_section',
    'forms_template_labels',
    'forms_template',
    'forms_folder_team_members',
    'forms_folder_admins',
    'forms_folder',
  ]) {
    await knex.schema.dropTable(table);
  }
}
