/**
 * History and recovery (engine/audit/, engine/history/):
 * - every audit entry and webhook delivery names its transaction (`tx`), so the link capture can
 *   fold a record's link changes into the entry and events its transaction wrote;
 * - the link capture's staging table and functions (engine/audit/link-capture.ts);
 * - security events as audit entries (actions beyond create, update and delete; a failed sign-in
 *   of an unknown name names no record);
 * - the trail stays append-only, except that the capture completes an entry of its own transaction
 *   and the retention prune (`bms.audit_prune`) removes old entries;
 * - the trash table and its trigger function (engine/history/trash-trigger.ts).
 * The triggers themselves are kept in step with the declarations on every migrate.
 */
import type { Knex } from 'knex';
import { ENTRY_ACTIONS, WRITE_ACTIONS } from '../engine/audit/actions.js';
import { captureFunction } from '../engine/audit/capture-function.js';
import { LINK_CAPTURE_DOWN_SQL, LINK_CAPTURE_SQL } from '../engine/audit/link-capture.js';
import { TRASH_DOWN_SQL, TRASH_SQL } from '../engine/history/trash-trigger.js';

const actionCheck = (actions: readonly string[]) =>
  `alter table audit_entries add constraint audit_entries_action_check check (action in (${actions.map((a) => `'${a}'`).join(', ')}))`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table audit_entries add column tx bigint');
  await knex.raw('alter table webhook_deliveries add column tx bigint');
  await knex.raw(`create index webhook_deliveries_tx on webhook_deliveries (tx) where status = 'pending'`);
  await knex.raw(captureFunction(true, true));
  await knex.raw('alter table audit_entries drop constraint audit_entries_action_check');
  await knex.raw('alter table audit_entries alter column action type varchar(32)');
  await knex.raw(actionCheck(ENTRY_ACTIONS));
  await knex.raw('alter table audit_entries alter column record_id drop not null');
  await knex.raw('drop trigger audit_entries_append_only on audit_entries');
  await knex.raw(`create function audit_entries_guard() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.tx = txid_current() and new.tx is not distinct from old.tx then
        return new;
      end if;
      if tg_op = 'DELETE' and current_setting('bms.audit_prune', true) = 'on' then
        return old;
      end if;
      raise exception 'audit_entries is append-only';
    end $$`);
  await knex.raw('create trigger audit_entries_guard before update or delete on audit_entries for each row execute function audit_entries_guard()');
  await knex.raw('create trigger audit_entries_append_only before truncate on audit_entries for each statement execute function audit_entries_append_only()');
  for (const sql of [...LINK_CAPTURE_SQL, ...TRASH_SQL]) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  for (const sql of [...TRASH_DOWN_SQL, ...LINK_CAPTURE_DOWN_SQL]) await knex.raw(sql);
  await knex.raw('drop trigger audit_entries_append_only on audit_entries');
  await knex.raw('drop trigger audit_entries_guard on audit_entries');
  await knex.raw('drop function audit_entries_guard()');
  await knex.raw(`delete from audit_entries where action <> all(array[${WRITE_ACTIONS.map((a) => `'${a}'`).join(', ')}])`);
  await knex.raw('create trigger audit_entries_append_only before update or delete or truncate on audit_entries for each statement execute function audit_entries_append_only()');
  await knex.raw('alter table audit_entries alter column record_id set not null');
  await knex.raw('alter table audit_entries drop constraint audit_entries_action_check');
  await knex.raw('alter table audit_entries alter column action type varchar(10)');
  await knex.raw(actionCheck(WRITE_ACTIONS));
  await knex.raw(captureFunction(true));
  await knex.raw('drop index webhook_deliveries_tx');
  await knex.raw('alter table webhook_deliveries drop column tx');
  await knex.raw('alter table audit_entries drop column tx');
}
