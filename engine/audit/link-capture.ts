/**
 * The link capture: a change of a record's many-to-many links is recorded as a change of its
 * `<name>_ids` (`[old set, new set]`, ids ascending) in the record's audit entry, and sent with the
 * record's webhook event, however the links were written (one statement, a batch,
 * a cascade). A link table's row trigger (`bms_capture_links`) notes, at the first touch of a
 * record's links in a transaction, the set as it was (`audit_link_changes`); at commit a deferred
 * trigger (`bms_flush_links`) compares it with the set as it is and adds the change to the entry the
 * transaction wrote for the record (and to its pending deliveries), or writes an `update` entry and
 * `updated` events of its own. A record deleted in the transaction keeps only its delete entry.
 * A create's links written by its own statement are recorded by the record's capture: the write
 * plan's create names its record (CREATED_RECORD in engine/audit/capture-function.ts), whose links
 * then get no note, and the capture reads their sets itself; without the name it takes their notes.
 * Either way the flush finds nothing left for them.
 * A change of a user's groups (a grant of power) is also a `groups_changed` security event.
 * Migration 0360 made both functions generic (the sides read from the trigger's argument, each set
 * by a query built per row); every migrate gives each link table a function of its own and the
 * flush a query per side, written out, so none is built and planned again for every write.
 */
import type { Knex } from 'knex';
import type { Resource } from '../registry/resource.js';
import { keepTriggerInStep, literal } from '../storage/declared-triggers.js';
import { q } from '../storage/sql.js';
import { linksLeftToCreate, writtenOutSet, setOfChosen } from './capture-function.js';
import { sidesOf, type LinkSide } from './capture-triggers.js';

/** `select coalesce(array_agg(<other>), '{}') from <link> where <column> = $1`, as plpgsql builds it from a side `s` (EXECUTE: planned anew each run; writtenOutSet is the query written out). */
const builtSet = (s: string) =>
  `format('select coalesce(array_agg(%I order by %I), ''{}'') from %I where %I = $1', ${s}->>'target', ${s}->>'target', ${s}->>'link', ${s}->>'column')`;

/**
 * The flush (a deferred trigger on `audit_link_changes`): with the sides known, each set is read by
 * a query written out for it (planned once per connection), and a record whose transaction already
 * wrote its entry is not read again; a side it does not know (a declaration newer than the function)
 * is read by a query built for it.
 */
export function flushBody(sides: readonly LinkSide[]): string {
  const known = setOfChosen(sides, (side) => `c.resource = ${literal(side.resource)} and c.name = ${literal(side.name)}`, 'c.record_id', 'now_ids');
  const read = `${known}${known ? 'else' : ''}
          execute ${builtSet('s')} using c.record_id into now_ids;${known ? `
        end if;` : ''}`;
  return `
    declare
      c record;
      s jsonb;
      now_ids integer[];
      delta jsonb := '{}';
      sets jsonb := '{}';
      stored jsonb;
      entry bigint;
      entry_action text;
      -- changes of a user's groups: a security event of their own too
      granted jsonb := '{}';
    begin
      for c in delete from audit_link_changes where tx = new.tx and resource = new.resource and record_id = new.record_id returning * loop
        s := c.side;
        ${read}
        if now_ids is distinct from c.old_ids then
          delta := delta || jsonb_build_object(c.name, jsonb_build_array(to_jsonb(c.old_ids), to_jsonb(now_ids)));
          sets := sets || jsonb_build_object(c.name, to_jsonb(now_ids));
          if s ->> 'security' is not null then
            granted := granted || jsonb_build_object(c.name, delta -> c.name);
          end if;
        end if;
      end loop;
      -- already flushed with an earlier row of the record, or nothing changed in the end
      if s is null or delta = '{}' then
        return null;
      end if;
      select e.id, e.action into entry, entry_action from audit_entries e
        where e.tx = new.tx and e.resource = new.resource and e.record_id = new.record_id and e.action in ('create', 'update', 'delete') order by e.id desc limit 1;
      -- the record is gone: its delete entry is the last word
      if entry_action = 'delete' then
        return null;
      end if;
      if entry is null then
        execute format('select to_jsonb(t) from %I t where t.id = $1', s ->> 'table') using new.record_id into stored;
        if stored is null then
          return null;
        end if;
      end if;
      if granted <> '{}' then
        insert into audit_entries (user_id, action, resource, record_id, changes, request_id, tx)
          values (nullif(current_setting('bms.user_id', true), '')::integer, s ->> 'security', new.resource, new.record_id, granted,
                  nullif(current_setting('bms.request_id', true), ''), new.tx);
      end if;
      if entry is not null then
        update audit_entries set changes = changes || case when action = 'create' then sets else delta end where id = entry;
        update webhook_deliveries set data = data || sets where tx = new.tx and resource = new.resource and record_id = new.record_id and status = 'pending';
        return null;
      end if;
      insert into audit_entries (user_id, action, resource, record_id, changes, request_id, snapshot, tx)
        values (nullif(current_setting('bms.user_id', true), '')::integer, 'update', new.resource, new.record_id, delta,
                nullif(current_setting('bms.request_id', true), ''),
                (select jsonb_object_agg(key, value) from jsonb_each(stored) where key in (select jsonb_array_elements_text(s -> 'kept'))), new.tx);
      insert into webhook_deliveries (subscription_id, event, resource, record_id, data, tx)
        select w.id, s ->> 'prefix' || '.updated', new.resource, new.record_id,
               jsonb_build_object('id', new.record_id)
                 || coalesce((select jsonb_object_agg(key, value) from jsonb_each(stored) where key in (select jsonb_array_elements_text(s -> 'recorded'))), '{}')
                 || sets, new.tx
          from webhook_subscriptions w where w.active and s ->> 'prefix' || '.updated' = any(w.events);
      return null;
    end `;
}

/** A link table's own capture function: per side, the record's column and its set written out. */
function linkCaptureBody(sides: readonly LinkSide[]): string {
  const each = sides.map((side) => {
    const note = `if not exists (select 1 from audit_link_changes c where c.tx = txid_current() and c.resource = ${literal(side.resource)} and c.record_id = rid and c.name = ${literal(side.name)}) then
        was := ${writtenOutSet(side, 'rid')};
        insert into audit_link_changes (tx, resource, record_id, name, old_ids, side) values (txid_current(), ${literal(side.resource)}, rid, ${literal(side.name)}, was, ${literal(JSON.stringify(side))}::jsonb);
      end if;`;
    // a record its statement has just created records its links itself, but a grant, which the flush words as a security event
    return `
      if tg_op = 'DELETE' then rid := old.${q(side.column)}; else rid := new.${q(side.column)}; end if;
      ${side.security ? note : `if not ${linksLeftToCreate(side.resource, 'rid')} then
      ${note}
      end if;`}`;
  });
  return `
    declare
      rid integer;
      was integer[];
    begin
      if current_setting('bms.capture', true) = 'off' then
        return case when tg_op = 'DELETE' then old else new end;
      end if;${each.join('')}
      return case when tg_op = 'DELETE' then old else new end;
    end `;
}

export const LINK_CAPTURE_SQL = [
  `create table audit_link_changes (
     id bigserial primary key,
     tx bigint not null,
     resource varchar(100) not null,
     record_id integer not null,
     name varchar(100) not null,
     old_ids integer[] not null,
     side jsonb not null,
     unique (tx, resource, record_id, name))`,
  // the trigger's one argument: the relations stored in the table, one side each (linkSides)
  `create function bms_capture_links() returns trigger language plpgsql as $$
    declare
      s jsonb;
      link jsonb := case when tg_op = 'DELETE' then to_jsonb(old) else to_jsonb(new) end;
      rid integer;
      was integer[];
    begin
      if current_setting('bms.capture', true) = 'off' then
        return case when tg_op = 'DELETE' then old else new end;
      end if;
      for s in select * from jsonb_array_elements(tg_argv[0]::jsonb) loop
        rid := (link ->> (s ->> 'column'))::integer;
        if not exists (select 1 from audit_link_changes c where c.tx = txid_current() and c.resource = s ->> 'resource' and c.record_id = rid and c.name = s ->> 'name') then
          execute ${builtSet('s')} using rid into was;
          insert into audit_link_changes (tx, resource, record_id, name, old_ids, side) values (txid_current(), s ->> 'resource', rid, s ->> 'name', was, s);
        end if;
      end loop;
      return case when tg_op = 'DELETE' then old else new end;
    end $$`,
  `create function bms_flush_links() returns trigger language plpgsql as $$${flushBody([])}$$`,
  `create constraint trigger bms_flush_links after insert on audit_link_changes deferrable initially deferred for each row execute function bms_flush_links()`,
];

export const LINK_CAPTURE_DOWN_SQL = ['drop table audit_link_changes', 'drop function bms_flush_links()', 'drop function bms_capture_links()'];

/** Per link table, the relations stored in it: each side names the record's column, the other one, and what its entry and events need. */
function linkSides(resources: readonly Resource[]): Map<string, LinkSide[]> {
  const sides = new Map<string, LinkSide[]>();
  for (const side of resources.flatMap(sidesOf)) sides.set(side.link, [...(sides.get(side.link) ?? []), side]);
  return sides;
}

/** Each link table's trigger and its own function, and the flush, which reads every side's set. */
export async function syncLinkCaptureTriggers(db: Knex, resources: readonly Resource[]): Promise<void> {
  const sides = linkSides(resources);
  const wanted = new Map([...sides].map(([table, all]) => [table, [JSON.stringify(all)]]));
  await keepTriggerInStep(db, { name: 'bms_capture_links', when: 'before insert or delete', call: 'bms_capture_links', wanted, functions: (table) => linkCaptureBody(sides.get(table)!) });
  const flush = flushBody([...sides.values()].flat());
  const { rows } = (await db.raw(`select prosrc from pg_proc where pronamespace = current_schema()::regnamespace and proname = 'bms_flush_links'`)) as { rows: { prosrc: string }[] };
  // made by migration 0360; replaced once its text is not the one wanted
  if (rows[0] && rows[0].prosrc !== flush) await db.raw(`create or replace function bms_flush_links() returns trigger language plpgsql as $bms$${flush}$bms$`);
}
