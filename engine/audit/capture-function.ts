/**
 * The change capture's trigger function, as migration 0260 made it (`bms_capture()`), as 0280
 * made it keep `snapshot` (the record's values as the entry leaves them; for a delete, as they
 * were) and 0360 name its transaction. Every table's trigger now calls a function of its own
 * (`tableCaptureFunction`, kept in step by engine/audit/capture-triggers.ts): the same body with
 * the recorded and kept columns written out, so a write reads the columns it records instead of
 * turning the whole row into JSON and filtering it (a third of the capture's cost).
 *
 * Arguments: the resource key (`issue/issue`), the event prefix (`issue.issue`), the state column
 * ('' for none), the recorded columns as an array literal (only served declared columns, so
 * passwords, hashes, tokens and secrets are never recorded) and, with the snapshot, the kept ones.
 */
import { q } from '../storage/sql.js';

/** A table's recorded and kept columns, as its function writes them out. */
export interface CapturedColumns {
  recorded: readonly string[];
  kept: readonly string[];
}

/** jsonb_build_object takes at most 100 arguments: 50 columns per call, the calls joined. */
function objectOf(row: 'old' | 'new', columns: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < columns.length; i += 50)
    parts.push(`jsonb_build_object(${columns.slice(i, i + 50).map((c) => `'${c}', ${row}.${q(c)}`).join(', ')})`);
  return parts.join(' || ');
}

/** The statement reading `row`'s recorded (and kept) values: written out when the columns are known, else filtered from the whole row by the trigger's arguments. */
function valuesOf(row: 'old' | 'new', snapshot: boolean, columns: CapturedColumns | undefined): string {
  if (columns) {
    const recorded = columns.recorded.length ? objectOf(row, columns.recorded) : `'{}'::jsonb`;
    return `${row}_values := ${recorded};` + (snapshot ? ` ${row}_row := ${columns.kept.length ? objectOf(row, columns.kept) : 'null'};` : '');
  }
  return (
    `select coalesce(jsonb_object_agg(key, value) filter (where key = any(recorded)), '{}')` +
    (snapshot ? `, jsonb_object_agg(key, value) filter (where key = any(kept)) into ${row}_values, ${row}_row` : ` into ${row}_values`) +
    ` from jsonb_each(to_jsonb(${row}));`
  );
}

/** The function's body (between its dollar quotes). */
export function captureBody(snapshot: boolean, tx: boolean, columns?: CapturedColumns): string {
  const values = (row: 'old' | 'new') => valuesOf(row, snapshot, columns);
  return `
    declare${
      columns
        ? ''
        : `
      recorded text[] := tg_argv[3]::text[];`
    }${
      snapshot
        ? `${
            columns
              ? ''
              : `
      -- absent until the triggers are next kept in step (at the end of the migrate that adds it)
      kept text[] := coalesce(tg_argv[4], '{}')::text[];`
          }
      old_row jsonb;
      new_row jsonb;`
        : ''
    }
      state_column text := nullif(tg_argv[2], '');
      old_values jsonb;
      new_values jsonb;
      changes jsonb;
      kind text;
      rid integer;
      kinds text[];
    begin
      if current_setting('bms.capture', true) = 'off' then
        return null;
      end if;
      if tg_op <> 'INSERT' then
        ${values('old')}
        rid := old.id;
      end if;
      if tg_op <> 'DELETE' then
        ${values('new')}
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
      insert into audit_entries (user_id, action, resource, record_id, changes, request_id${snapshot ? ', snapshot' : ''}${tx ? ', tx' : ''})
        values (nullif(current_setting('bms.user_id', true), '')::integer, kind, tg_argv[0], rid, changes,
                nullif(current_setting('bms.request_id', true), '')${snapshot ? ', coalesce(new_row, old_row)' : ''}${tx ? ', txid_current()' : ''});
      insert into webhook_deliveries (subscription_id, event, resource, record_id, data${tx ? ', tx' : ''})
        select s.id, e.name, tg_argv[0], rid, jsonb_build_object('id', rid) || coalesce(new_values, old_values)${tx ? ', txid_current()' : ''}
          from webhook_subscriptions s, unnest(kinds) x(event), lateral (select tg_argv[1] || '.' || x.event as name) e
          where s.active and e.name = any(s.events);
      return null;
    end `;
}

/** The generic function the migrations made, its columns taken from the trigger's arguments. */
export function captureFunction(snapshot: boolean, tx = false): string {
  return `create or replace function bms_capture() returns trigger language plpgsql as $$${captureBody(snapshot, tx)}$$`;
}
