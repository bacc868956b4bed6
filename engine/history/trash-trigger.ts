/**
 * The trash: a row trigger (`bms_trash`, before delete) on the table of every resource declared
 * `trash: true` copies the row (`to_jsonb`) and its links into `trash` before it goes, in the
 * deleting statement, whichever path deletes (one statement, a batch, a cascade).
 * The delete itself stays real: the record is gone from every list, detail, filter, foreign key
 * and expand, and a delete that `protect` refuses rolls the copy back with it. Its links are those
 * of every relation stored with its id on either side, so a restore brings back each link
 * (engine/history/trash.ts). Writes that skip the change capture (the seed's) skip the trash too.
 */
import type { Knex } from 'knex';
import type { Resource } from '../registry/resource.js';
import { keepTriggerInStep } from '../storage/declared-triggers.js';

export const TRASH_SQL = [
  `create table trash (
     id bigserial primary key,
     resource varchar(100) not null,
     record_id integer not null,
     "row" jsonb not null,
     links jsonb not null,
     deleted_at timestamptz(3) not null default now(),
     deleted_by integer,
     request_id varchar(128))`,
  'create index trash_deleted_at on trash (deleted_at)',
  'create index trash_record on trash (resource, record_id)',
  // arguments: the resource key, and its link columns as a JSON array of {link, column, other, target}
  `create function bms_trash() returns trigger language plpgsql as $$
    declare
      l jsonb;
      ids integer[];
      links jsonb := '[]';
    begin
      if current_setting('bms.capture', true) = 'off' then
        return old;
      end if;
      for l in select * from jsonb_array_elements(tg_argv[1]::jsonb) loop
        execute format('select coalesce(array_agg(%I order by %I), ''{}'') from %I where %I = $1', l ->> 'other', l ->> 'other', l ->> 'link', l ->> 'column')
          using old.id into ids;
        links := links || jsonb_build_array(l || jsonb_build_object('ids', to_jsonb(ids)));
      end loop;
      insert into trash (resource, record_id, "row", links, deleted_by, request_id)
        values (tg_argv[0], old.id, to_jsonb(old), links, nullif(current_setting('bms.user_id', true), '')::integer, nullif(current_setting('bms.request_id', true), ''));
      return old;
    end $$`,
];

export const TRASH_DOWN_SQL = ['drop function bms_trash() cascade', 'drop table trash'];

/** A link column holding a record's id: its join table, the column, the other column, and the table the other one points into. */
export interface LinkColumn {
  link: string;
  column: string;
  other: string;
  target: string;
}

/** The link columns that hold ids of `r`: its own relations' source columns, and others' relations to it by their target column. */
export function linkColumns(r: Resource, all: readonly Resource[]): LinkColumn[] {
  const found = new Map<string, LinkColumn>();
  for (const source of all) {
    for (const m of source.manyToMany) {
      if (source === r) found.set(`${m.spec.table}.${m.spec.sourceColumn}`, { link: m.spec.table, column: m.spec.sourceColumn, other: m.spec.targetColumn, target: m.target.table });
      if (m.target === r) found.set(`${m.spec.table}.${m.spec.targetColumn}`, { link: m.spec.table, column: m.spec.targetColumn, other: m.spec.sourceColumn, target: source.table });
    }
  }
  return [...found.values()];
}

export const trashed = (resources: readonly Resource[]): Resource[] => resources.filter((r) => r.declaration.trash === true);

export async function syncTrashTriggers(db: Knex, resources: readonly Resource[]): Promise<void> {
  const wanted = new Map(trashed(resources).map((r) => [r.table, [r.key, JSON.stringify(linkColumns(r, resources))]]));
  await keepTriggerInStep(db, { name: 'bms_trash', when: 'before delete', call: 'bms_trash', wanted });
}
