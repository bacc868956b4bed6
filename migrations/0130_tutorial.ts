/** Tutorial module: folders, courses, lessons, sections, enrollments and lesson progress. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const APPROVAL = ['draft', 'review', 'approved', 'expired', 'archived'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tutorial_folder', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('order').notNullable().defaultTo(0);
    t.enu('state', APPROVAL).notNullable().defaultTo('draft').index();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
  });
  await joinTable(knex, 'tutorial_folder_admins', { column: 'folder_id', table: 'tutorial_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'tutorial_folder_team_members', { column: 'folder_id', table: 'tutorial_folder' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('tutorial_course', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('mode', ['training', 'manual']).notNullable().index();
    t.enu('state', APPROVAL).notNullable().defaultTo('draft').index();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    foreignKey(t, 'folder_id', 'tutorial_folder', 'protect', true);
  });
  await joinTable(knex, 'tutorial_course_admins', { column: 'course_id', table: 'tutorial_course' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'tutorial_course_labels', { column: 'course_id', table: 'tutorial_course' }, { column: 'label_id', table: 'process_label' });

  await knex.schema.createTable('tutorial_lesson', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', APPROVAL).notNullable().defaultTo('draft').index();
    t.string('bpmn_id', 100).nullable();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'course_id', 'tutorial_course', 'cascade', true);
    foreignKey(t, 'parent_id', 'tutorial_lesson', 'cascade');
  });
  await joinTable(knex, 'tutorial_lesson_labels', { column: 'lesson_id', table: 'tutorial_lesson' }, { column: 'label_id', table: 'process_label' });

  await knex.schema.createTable('tutorial_section', (t) => {
    recordColumns(knex, t);
    t.enu('type', ['text', 'image', 'video', 'pdf', 'bpmn', 'excalidraw', 'related_documents']).notNullable().defaultTo('text').index();
    t.string('title', 255).nullable().index();
    t.text('text').nullable();
    t.string('url', 500).nullable();
    t.enu('layout', ['full', 'left', 'right']).notNullable().defaultTo('full').index();
    t.integer('order').notNullable().defaultTo(0);
    foreignKey(t, 'lesson_id', 'tutorial_lesson', 'cascade', true);
  });

  await knex.schema.createTable('tutorial_enrollment', (t) => {
    recordColumns(knex, t);
    t.enu('state', ['invited', 'not_started', 'in_progress', 'completed']).notNullable().defaultTo('invited').index();
    t.date('deadline').nullable().index();
    t.date('start_date').nullable().index();
    t.date('completion_date').nullable().index();
    foreignKey(t, 'course_id', 'tutorial_course', 'protect', true);
    foreignKey(t, 'user_id', 'users', 'protect', true);
  });

  await knex.schema.createTable('tutorial_lesson_progress', (t) => {
    recordColumns(knex, t);
    t.integer('percent').notNullable().defaultTo(0);
    t.boolean('completed').notNullable().defaultTo(false).index();
    t.enu('status', ['invited', 'not_started', 'in_progress', 'completed', 'not_required']).notNullable().defaultTo('not_started').index();
    t.date('deadline').nullable().index();
    t.timestamp('completed_at', { useTz: true, precision: 3 }).nullable();
    foreignKey(t, 'lesson_id', 'tutorial_lesson', 'cascade', true);
    foreignKey(t, 'user_id', 'users', 'cascade', true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'tutorial_lesson_progress',
    'tutorial_enrollment',
    'tutorial_section',
    'tutorial_lesson_labels',
    'tutorial_lesson',
    'tutorial_course_labels',
    'tutorial_course_admins',
    'tutorial_course',
    'tutorial_folder_team_members',
    'tutorial_folder_admins',
    'tutorial_folder',
  ]) {
    await knex.schema.dropTable(table);
  }
}
