/**
 * Sign-in state that holds whatever path writes users (API, batch, manage command, plain SQL):
 * - `end_sessions(user, keep)` ends a user's sessions (all but `keep`): a password change calls it
 *   (engine/auth/sessions.ts), and a trigger calls it when a user is deactivated, in the deactivating
 *   transaction, so reactivating the user brings no session back;
 * - `sign_in_addresses`: the addresses each user signed in from successfully, and when last; from
 *   one used within 30 days the username's limit over all addresses does not apply (engine/auth/throttle.ts).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create function end_sessions(user_id integer, keep text) returns void language sql as $$
    delete from sessions where (data->>'userId')::int = user_id and id is distinct from keep
  $$`);
  await knex.raw(`create function users_end_sessions() returns trigger language plpgsql as $$
    begin
      perform end_sessions(new.id, null);
      return null;
    end $$`);
  await knex.raw(`create trigger users_end_sessions after update of is_active on users
    for each row when (old.is_active and not new.is_active) execute function users_end_sessions()`);

  await knex.schema.createTable('sign_in_addresses', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('address', 100).notNullable();
    t.timestamp('signed_in', { useTz: true, precision: 3 }).notNullable();
    t.primary(['user_id', 'address']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_addresses');
  await knex.raw('drop trigger users_end_sessions on users');
  await knex.raw('drop function users_end_sessions()');
  await knex.raw('drop function end_sessions(integer, text)');
}
