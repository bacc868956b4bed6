/** Organisation module: employees. */
import type { Knex } from 'knex';
import { foreignKey, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisation_mitarbeitende', (t) => {
    recordColumns(knex, t);
    t.string('vorname', 100).notNullable();
    t.string('nachname', 100).notNullable();
    t.string('email', 254).nullable();
    t.string('phone', 50).nullable();
    t.enu('employment_type', ['intern', 'extern', 'ehemalig']).notNullable().defaultTo('intern').index();
    t.date('entry_date').nullable().index();
    t.date('exit_date').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'user_id', 'users', 'set null');
    foreignKey(t, 'supervisor_id', 'organisation_mitarbeitende', 'set null');
    t.index(['nachname', 'vorname']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('organisation_mitarbeitende');
}
