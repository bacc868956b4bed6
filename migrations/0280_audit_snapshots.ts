/**
 * Each audit entry of a resource with a view rule keeps the record's values as the entry leaves
 * them (for a delete, as they were): `audit_entries.snapshot`, the columns the capture's fifth
 * argument names (engine/audit/capture-triggers.ts), so `/api/audit` shows an entry only to callers
 * whose view rule admits the record as it was then, not only as it is now. Entries written before
 * have none and are shown to superusers only (where the resource has a view rule): their past
 * values cannot all be known.
 */
import type { Knex } from 'knex';
import { CAPTURE_FUNCTION } from './0260_change_capture.js';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table audit_entries add column snapshot jsonb');
  await knex.raw(`create or replace function bms_capture() returns trigger language plpgsql as $$
    declare
      recorded text[] := tg_argv[3]::text[];
      -- absent until the triggers are next kept in step (at the end of this migrate)
      kept text[] := coalesce(tg_argv[4], '{}')::text[];
      state_column text := nullif(tg_argv[2], '');
      old_values jsonb;
      new_values jsonb;
      old_row jsonb;
      new_row jsonb;
      changes jsonb;
      kind text;
      rid integer;
      kinds text[];
    begin
      if current_setting('bms.capture', true) = 'off' then
        return null;
      end if;
      if tg_op <> 'INSERT' then
        select coalesce(jsonb_object_agg(key, value) filter (where key = any(recorded)), '{}'), jsonb_object_agg(key, value) filter (where key = any(kept))
          into old_values, old_row from jsonb_each(to_jsonb(old));
        rid := old.id;
      end if;
      if tg_op <> 'DELETE' then
        select coalesce(jsonb_object_agg(key, value) filter (where key = any(recorded)), '{}'), jsonb_object_agg(key, value) filter (where key = any(kept))
          into new_values, new_row from jsonb_each(to_jsonb(new));
        rid := new.id;
      end if;
      if tg_op = 'INSERT' then
        kind := 'create';
        changes := new_values;
        kinds := array['created'];
      elsif tg_op = 'DELETE' then
        kind := 'delete';
        changes := old_values;
        kinds := array['deleted'];
      else
        select jsonb_object_agg(n.key, jsonb_build_array(old_values -> n.key, n.value)) into changes
          from jsonb_each(new_values) n where n.value is distinct from old_values -> n.key;
        -- nothing recorded changed (e.g. only bookkeeping columns): no entry, no event
        if changes is null then
          return null;
        end if;
        kind := 'update';
        kinds := case when jsonb_exists(changes, state_column) then array['updated', 'state_changed'] else array['updated'] end;
      end if;
      insert into audit_entries (user_id, action, resource, record_id, changes, request_id, snapshot)
        values (nullif(current_setting('bms.user_id', true), '')::integer, kind, tg_argv[0], rid, changes,
                nullif(current_setting('bms.request_id', true), ''), coalesce(new_row, old_row));
      insert into webhook_deliveries (subscription_id, event, resource, record_id, data)
        select s.id, e.name, tg_argv[0], rid, jsonb_build_object('id', rid) || coalesce(new_values, old_values)
          from webhook_subscriptions s, unnest(kinds) x(event), lateral (select tg_argv[1] || '.' || x.event as name) e
          where s.active and e.name = any(s.events);
      return null;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(CAPTURE_FUNCTION);
  await knex.raw('alter table audit_entries drop column snapshot');
}
