/** Server-side sessions (shared by every instance) and the failed-login counters that throttle sign-in. */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 64).primary();
    t.jsonb('data').notNullable();
    t.timestamp('expires', { useTz: true, precision: 3 }).notNullable().index();
  });
  await knex.schema.createTable('login_failures', (t) => {
    // `user:<name>` or `addr:<ip>`
    t.string('key', 300).primary();
    t.integer('failures').notNullable();
    t.timestamp('window_start', { useTz: true, precision: 3 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('login_failures');
  await knex.schema.dropTable('sessions');
}
