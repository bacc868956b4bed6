/**
 * Every write that changes who a token's holder is or what they may do sends
 * `NOTIFY principals_changed` (engine/auth/principal-changes.ts), so each instance drops its cached
 * principals. Triggers, not application code: they catch every path (API, batches, manage commands,
 * hand-written SQL), and PostgreSQL delivers the notification only when the transaction commits.
 * Writes that change nothing a principal holds (`last_used`, `last_login`, e-mail, names) stay silent.
 * The payload is the transaction's id: an instance hears each change on several connections and
 * acts on it once.
 */
import type { Knex } from 'knex';

/** table → the `after` events that change principals, as trigger clauses. */
const TRIGGERS: Record<string, string[]> = {
  users: [
    `update on users for each row when (old.is_active is distinct from new.is_active or old.is_superuser is distinct from new.is_superuser
       or old.password is distinct from new.password or old.username is distinct from new.username)`,
    'delete or truncate on users for each statement',
  ],
  groups: ['update on groups for each row when (old.permissions is distinct from new.permissions)', 'delete or truncate on groups for each statement'],
  users_groups: ['insert or update or delete or truncate on users_groups for each statement'],
  // a new token needs no notice: it was never cached
  api_tokens: [
    `update on api_tokens for each row when (old.expires is distinct from new.expires or old.user_id is distinct from new.user_id
       or old.key_hash is distinct from new.key_hash)`,
    'delete or truncate on api_tokens for each statement',
  ],
};

const names = (table: string) => TRIGGERS[table]!.map((_, i) => `${table}_principals_changed_${i + 1}`);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create function notify_principals_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('principals_changed', txid_current()::text);
      return null;
    end $$`);
  for (const [table, clauses] of Object.entries(TRIGGERS)) {
    const triggers = names(table);
    for (const [i, clause] of clauses.entries()) {
      await knex.raw(`create trigger ${triggers[i]} after ${clause} execute function notify_principals_changed()`);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(TRIGGERS)) {
    for (const trigger of names(table)) await knex.raw(`drop trigger ${trigger} on ${table}`);
  }
  await knex.raw('drop function notify_principals_changed()');
}
