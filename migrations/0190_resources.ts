/** Resources module: resources and their allocations. */
import type { Knex } from 'knex';
import { foreignKey, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('resources_resources', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('kind', ['room', 'vehicle', 'equipment']).notNullable().index();
    t.integer('capacity').nullable();
    t.string('location', 255).nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'responsible_id', 'users', 'set null');
  });

  await knex.schema.createTable('resources_allocations', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.timestamp('start', { useTz: true, precision: 3 }).notNullable().index();
    t.timestamp('end', { useTz: true, precision: 3 }).notNullable().index();
    foreignKey(t, 'resource_id', 'resources_resources', 'cascade', true);
    foreignKey(t, 'user_id', 'users', 'set null');
    // the overlap check looks up one resource's bookings by period
    t.index(['resource_id', 'start', 'end']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('resources_allocations');
  await knex.schema.dropTable('resources_resources');
}
