/**
 * Security events in the audit trail, about a user (resource `user`, the record the user's id),
 * never with a secret value (no password, hash, token or session id):
 * - recorded by the engine where they happen: a sign-in and a failed one (with the address; a
 *   failure names the user only when the name is a user's), a sign-out, a token created or revoked;
 * - recorded by the database whatever path writes (migration 0361): a password changed (by the user)
 *   or reset (by another, or a manage command), the superuser flag changed, sessions ended (by a
 *   password change or a deactivation), and (engine/audit/link-capture.ts) the groups changed.
 */
import type { Knex } from 'knex';
import { PRINCIPALS } from '../registry/resource.js';
import type { SecurityAction } from './actions.js';

export interface SecurityEvent {
  action: SecurityAction;
  /** Who did it: the user signing in, or the signed-in caller; null when unknown. */
  by: number | null;
  /** About whom; null for a failed sign-in under a name that is no user's. */
  user: number | null;
  details?: Record<string, unknown>;
  requestId?: string;
}

export async function recordSecurityEvent(db: Knex, e: SecurityEvent): Promise<void> {
  await db('audit_entries').insert({
    user_id: e.by,
    action: e.action,
    resource: PRINCIPALS.user,
    record_id: e.user,
    changes: JSON.stringify(e.details ?? {}),
    request_id: e.requestId ?? null,
    tx: db.raw('txid_current()'),
  });
}

/** Which entry an actor setting (`bms.user_id`) and the user written make of a password change. */
const actor = `nullif(current_setting('bms.user_id', true), '')::integer`;
const entry = (action: string, record: string, changes: string) =>
  `insert into audit_entries (user_id, action, resource, record_id, changes, request_id, tx)
     values (${actor}, ${action}, '${PRINCIPALS.user}', ${record}, ${changes}, nullif(current_setting('bms.request_id', true), ''), txid_current());`;

export const SECURITY_EVENTS_SQL = [
  `create function users_security_events() returns trigger language plpgsql as $$
    begin
      if current_setting('bms.capture', true) = 'off' then
        return null;
      end if;
      if new.password is distinct from old.password then
        ${entry(`case when ${actor} = new.id then 'password_changed' else 'password_reset' end`, 'new.id', `'{}'`)}
      end if;
      if new.is_superuser is distinct from old.is_superuser then
        ${entry(`'superuser_changed'`, 'new.id', `jsonb_build_object('is_superuser', jsonb_build_array(old.is_superuser, new.is_superuser))`)}
      end if;
      return null;
    end $$`,
  `create trigger users_security_events after update of password, is_superuser on users for each row execute function users_security_events()`,
  // as migration 0310 made it, and now recording how many sessions it ended
  `create or replace function end_sessions(user_id integer, keep text) returns void language plpgsql as $$
    declare
      ended integer;
    begin
      delete from sessions where (data->>'userId')::int = end_sessions.user_id and id is distinct from keep;
      get diagnostics ended = row_count;
      if ended > 0 then
        ${entry(`'session_ended'`, 'end_sessions.user_id', `jsonb_build_object('sessions', ended)`)}
      end if;
    end $$`,
];

export const SECURITY_EVENTS_DOWN_SQL = [
  'drop trigger users_security_events on users',
  'drop function users_security_events()',
  `create or replace function end_sessions(user_id integer, keep text) returns void language sql as $$
    delete from sessions where (data->>'userId')::int = user_id and id is distinct from keep
  $$`,
];
