/** DMS module: folders, document types, documents and their links. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dms_folder', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    t.boolean('inherit_permissions').notNullable().defaultTo(false).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'parent_id', 'dms_folder', 'cascade');
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'reviewing_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'approving_function_id', 'organisation_funktionen', 'set null');
  });
  await joinTable(knex, 'dms_folder_admins', { column: 'folder_id', table: 'dms_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'dms_folder_team_members', { column: 'folder_id', table: 'dms_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'dms_folder_orgunits', { column: 'folder_id', table: 'dms_folder' }, { column: 'orgunit_id', table: 'organisation_orgunit' });

  await knex.schema.createTable('dms_documenttype', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('dms_document', (t) => {
    recordColumns(knex, t);
    t.string('code', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.integer('revision').nullable();
    t.enu('state', ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived']).notNullable().defaultTo('draft').index();
    t.date('valid_from').nullable().index();
    t.date('valid_to').nullable().index();
    t.date('next_review').nullable().index();
    t.enu('review_periodicity', ['monthly', 'quarterly', 'half_yearly', 'yearly', 'every_2_years', 'custom']).nullable().index();
    t.string('external_url', 2000).nullable();
    t.integer('retention_years').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'folder_id', 'dms_folder', 'protect', true);
    foreignKey(t, 'documenttype_id', 'dms_documenttype', 'set null');
    foreignKey(t, 'owner_id', 'users', 'set null');
    foreignKey(t, 'author_id', 'organisation_mitarbeitende', 'set null');
    foreignKey(t, 'responsible_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'reviewing_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'approving_function_id', 'organisation_funktionen', 'set null');
    foreignKey(t, 'working_copy_of_id', 'dms_document', 'set null');
  });
  await joinTable(knex, 'dms_document_processes', { column: 'document_id', table: 'dms_document' }, { column: 'process_id', table: 'process_process' });
  await joinTable(knex, 'dms_document_related_documents', { column: 'document_id', table: 'dms_document' }, { column: 'related_document_id', table: 'dms_document' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'dms_document_related_documents',
    'dms_document_processes',
    'dms_document',
    'dms_documenttype',
    'dms_folder_orgunits',
    'dms_folder_team_members',
    'dms_folder_admins',
    'dms_folder',
  ]) {
    await knex.schema.dropTable(table);
  }
}
