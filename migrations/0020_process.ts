/** Process module: processes. */
import type { Knex } from 'knex';
import { foreignKey, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('process_process', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived']).notNullable().defaultTo('draft').index();
    t.date('valid_from').nullable().index();
    t.date('valid_to').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'parent_id', 'process_process', 'cascade');
    foreignKey(t, 'owner_id', 'users', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('process_process');
}
