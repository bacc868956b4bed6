/** Measuringtool module: measuring tools. */
import type { Knex } from 'knex';
import { foreignKey, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('measuringtool_measuringtool', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.string('number', 50).nullable();
    t.string('serial_number', 100).nullable().index();
    t.string('manufacturer', 255).nullable();
    t.string('location', 255).nullable();
    t.integer('calibration_interval').nullable();
    t.date('last_calibration').nullable().index();
    t.date('next_calibration').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'responsible_id', 'users', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('measuringtool_measuringtool');
}
