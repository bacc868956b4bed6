/**
 * Stored files (engine/files): one row per version of a record's file field and per attachment,
 * naming its bytes by SHA-256 in the blob store. Written in the upload's transaction, after the
 * bytes are stored; the orphan sweep removes bytes no committed row names. The table is the
 * engine's (not declared), keyed by the record's resource and id, so any resource can have files.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_versions', (t) => {
    t.increments('id');
    t.string('resource', 255).notNullable();
    t.integer('record_id').notNullable();
    // the file field's name, or `attachments`
    t.string('slot', 255).notNullable();
    // 1, 2, … per (resource, record, slot)
    t.integer('version').notNullable();
    t.string('name', 255).notNullable();
    t.bigInteger('size').notNullable();
    t.string('media_type', 255).notNullable();
    t.string('sha256', 64).notNullable().index();
    t.integer('uploaded_by').references('id').inTable('users').onDelete('SET NULL');
    t.timestamp('uploaded_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.integer('restored_from');
    t.unique(['resource', 'record_id', 'slot', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_versions');
}
