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
 *
 * A create's links written by the same statement (the one-statement create) are recorded in its
 * entry and event by the function itself: a row trigger runs after its whole statement, so the
 * links are in place. The statement names its record (CREATED_RECORD), so the link capture
 * (engine/audit/link-capture.ts) notes none of them and no flush runs at commit; a create not so
 * named has its notes taken here. Otherwise the flush would update the entry and its deliveries it
 * has just written: a third of a create's capture cost, and the notes nearly as much again.
 */
import { literal } from '../storage/declared-triggers.js';
import { q } from '../storage/sql.js';

/** A relation stored in a link table, from the record's side: its name and where its set is read. */
export interface LinkedSet {
  name: string;
  link: string;
  column: string;
  target: string;
}

/** A table's recorded and kept columns, as its function writes them out, and the relations a create records itself. */
export interface CapturedColumns {
  recorded: readonly string[];
  kept: readonly string[];
  links?: readonly LinkedSet[];
}

/** The record's set as it is, written out for `set` (the record's id in `id`); its columns qualified, as a function's variables may share their names. */
export const writtenOutSet = (set: LinkedSet, id: string): string =>
  `(select coalesce(array_agg(w_link.${q(set.target)} order by w_link.${q(set.target)}), '{}') from ${q(set.link)} w_link where w_link.${q(set.column)} = ${id})`;

/**
 * `into` := the set of the relation `chosen` picks (a condition per relation), the record's id in
 * the expression `id`: one branch per relation, each its own statement (a single expression would
 * set up every relation's query on every run). Empty without relations; else open: `end if` or an
 * `else` branch follows.
 */
export function setOfChosen<T extends LinkedSet>(sets: readonly T[], chosen: (set: T) => string, id: string, into: string): string {
  return sets
    .map(
      (set, i) => `${i ? 'els' : ''}if ${chosen(set)} then
          ${into} := ${writtenOutSet(set, id)};
        `,
    )
    .join('');
}

/**
 * The record a one-statement create has just written, named for its links (`<resource>:<id>`, SQL
 * of the resource key and the id): the create's insert sets it as it returns the row
 * (crud/write-statement.ts), so the link capture takes no note of the links the same statement then
 * writes for it, and the record's capture, at the statement's end, reads them itself and clears it.
 * A statement that fails takes its setting with it; one that writes several records sets none.
 */
export const CREATED_RECORD = 'bms.created_record';
export const createdRecord = (resource: string, id: string): string => `${resource} || ':' || ${id}`;
const isCreatedRecord = (resource: string, id: string): string => `coalesce(current_setting('${CREATED_RECORD}', true), '') = ${createdRecord(resource, id)}`;

/**
 * A create's links written by its statement: the sets read (the record is new: each non-empty set
 * is a change) when the statement named it, else the link capture's notes of them taken, each set
 * that differs from the note's added to `sets` (the note's set is empty unless the record was deleted
 * and made again in the transaction, as the flush compares them).
 */
function createdLinks(links: readonly LinkedSet[]): string {
  if (links.length === 0) return '';
  const read = links.map(
    (l) => `now_ids := ${writtenOutSet(l, 'rid')};
          if now_ids <> '{}' then
            sets := sets || jsonb_build_object(${literal(l.name)}, to_jsonb(now_ids));
          end if;`,
  );
  return `
        if ${isCreatedRecord('tg_argv[0]', 'rid')} then
          perform set_config('${CREATED_RECORD}', '', true);
          ${read.join('\n          ')}
        else
          for note in delete from audit_link_changes where tx = txid_current() and resource = tg_argv[0] and record_id = rid
              and name in (${links.map((l) => literal(l.name)).join(', ')}) returning name, old_ids loop
            ${setOfChosen(links, (l) => `note.name = ${literal(l.name)}`, 'rid', 'now_ids')}end if;
            if now_ids is distinct from note.old_ids then
              sets := sets || jsonb_build_object(note.name, to_jsonb(now_ids));
            end if;
          end loop;
        end if;
        changes := changes || sets;`;
}

/** Whether the link capture of a set of `resource` leaves its record to the record's capture (see CREATED_RECORD). */
export const linksLeftToCreate = (resource: string, id: string): string => isCreatedRecord(literal(resource), id);

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
    const kept = snapshot ? (columns.kept.length ? objectOf(row, columns.kept) : 'null') : undefined;
    if (row === 'new') return `new_values := ${recorded};${kept ? ` new_row := ${kept};` : ''}`;
    // an update compares column by column (updateChanges): the old values only for a delete, whose
    // entry keeps the record as it was
    return `if tg_op = 'DELETE' then old_values := ${recorded};${kept && columns.kept.length ? ` old_row := ${kept};` : ''} end if;`;
  }
  return (
    `select coalesce(jsonb_object_agg(key, value) filter (where key = any(recorded)), '{}')` +
    (snapshot ? `, jsonb_object_agg(key, value) filter (where key = any(kept)) into ${row}_values, ${row}_row` : ` into ${row}_values`) +
    ` from jsonb_each(to_jsonb(${row}));`
  );
}

/**
 * An update's `changes` (`{column: [old, new]}`, null when no recorded column changed). Written out,
 * each column is compared as JSON, as the generic function compares the whole rows' JSON: the same
 * equality, without building the old row's object and taking both apart again (a sixth of an
 * update's capture).
 */
function updateChanges(columns: CapturedColumns | undefined): string {
  if (!columns)
    return `select jsonb_object_agg(n.key, jsonb_build_array(old_values -> n.key, n.value)) into changes
          from jsonb_each(new_values) n where n.value is distinct from old_values -> n.key;`;
  return columns.recorded
    .map((c) => {
      const [was, now] = [`to_jsonb(old.${q(c)})`, `to_jsonb(new.${q(c)})`];
      return `if ${now} is distinct from ${was} then
          changes := coalesce(changes, '{}') || jsonb_build_object(${literal(c)}, jsonb_build_array(${was}, ${now}));
        end if;`;
    })
    .join('\n        ');
}

/**
 * The events' deliveries, one per active subscription to each; written out, only once a subscription
 * is active at all, as most installations have none: the insert alone would open the deliveries'
 * table and its indexes on every write.
 */
function deliveries(insert: string, columns: CapturedColumns | undefined): string {
  if (!columns) return insert;
  return `if exists (select 1 from webhook_subscriptions s where s.active) then
        ${insert}
      end if;`;
}

/** The function's body (between its dollar quotes). */
export function captureBody(snapshot: boolean, tx: boolean, columns?: CapturedColumns): string {
  const values = (row: 'old' | 'new') => valuesOf(row, snapshot, columns);
  const links = columns?.links ?? [];
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
      kinds text[];${
        links.length
          ? `
      note record;
      now_ids integer[];
      sets jsonb := '{}';`
          : ''
      }
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
        changes := new_values;${createdLinks(links)}
        kinds := array['created'];
      elsif tg_op = 'DELETE' then
        kind := 'delete';
        changes := old_values;
        kinds := array['deleted'];
      else
        ${updateChanges(columns)}
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
      ${deliveries(
        `insert into webhook_deliveries (subscription_id, event, resource, record_id, data${tx ? ', tx' : ''})
        select s.id, e.name, tg_argv[0], rid, jsonb_build_object('id', rid) || coalesce(new_values, old_values)${links.length ? ' || sets' : ''}${tx ? ', txid_current()' : ''}
          from webhook_subscriptions s, unnest(kinds) x(event), lateral (select tg_argv[1] || '.' || x.event as name) e
          where s.active and e.name = any(s.events);`,
        columns,
      )}
      return null;
    end `;
}

/** The generic function the migrations made, its columns taken from the trigger's arguments. */
export function captureFunction(snapshot: boolean, tx = false): string {
  return `create or replace function bms_capture() returns trigger language plpgsql as $$${captureBody(snapshot, tx)}$$`;
}
