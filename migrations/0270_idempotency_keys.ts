/**
 * Idempotency keys of POST requests (engine/http/idempotency.ts): per user and key, what the first
 * request was (method, path and body, hashed) and what it answered. A key's row is written in the
 * same transaction as the request's records, so a crash leaves both or neither; rows older than
 * 24 hours are purged.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('fingerprint', 64).notNullable();
    // set before the transaction commits; a row another request can read always has them
    t.smallint('status');
    t.text('body');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now()).index();
    t.primary(['user_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
