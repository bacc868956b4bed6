/**
 * The change capture's trigger function `bms_capture()`, as migration 0260 made it and as 0280
 * made it keep `snapshot`: the record's values as the entry leaves them (for a delete, as they
 * were) in the columns its fifth argument names (engine/audit/capture-triggers.ts).
 *
 * Arguments: the resource key (`issue/issue`), the event prefix (`issue.issue`), the state column
 * ('' for none), the recorded columns as an array literal (only served declared columns, so
 * passwords, hashes, tokens and secrets are never recorded) and, with the snapshot, the kept ones.
 */
export function captureFunction(snapshot: boolean, tx = false): string {
  const values = (row: 'old' | 'new'): string =>
    `select coalesce(jsonb_object_agg(key, value) filter (where key = any(recorded)), '{}')` +
    (snapshot ? `, jsonb_object_agg(key, value) filter (where key = any(kept)) into ${row}_values, ${row}_row` : ` into ${row}_values`) +
    ` from jsonb_each(to_jsonb(${row}));`;
  return `create or replace function bms_capture() returns trigger language plpgsql as $$
    declare
      recorded text[] := tg_argv[3]::text[];${
        snapshot
          ? `
      -- absent until the triggers are next kept in step (at the end of the migrate that adds it)
      kept text[] := coalesce(tg_argv[4], '{}')::text[];
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
    end $$`;
}
