/**
 * Every declared resource's table carries the change-capture trigger (`bms_capture`,
 * engine/audit/capture-function.ts), its arguments taken from the declaration: the resource key, its
 * event prefix, its state column, the columns recorded (served ones only, so a password, hash or
 * secret never is; and no bookkeeping, so an update of only `last_login` records and sends nothing)
 * and, for a resource with a view rule, the columns kept whole with each entry: the
 * served ones, `id` and `created_by`, so every column a rule reads of the row (access-check.ts
 * refuses rules on fields never served), and `/api/audit` judges each entry by the values it
 * recorded (viewsEveryState, engine/access/visibility.ts). Kept in step on every migrate: a trigger
 * whose arguments differ from the declaration's is replaced, so a new resource or field needs no
 * migration of its own for it.
 */
import type { Knex } from 'knex';
import type { Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

const TRIGGER = 'bms_capture';

/** `issue.issue`: the first two parts of the resource's webhook event names. */
export const eventPrefix = (r: Resource): string => `${r.module}.${r.name}`;

const columnsOf = (r: Resource, served: (f: Resource['fields'][number]) => boolean): string[] => [
  ...r.fields.filter((f) => f.column && served(f)).map((f) => f.column!),
  ...r.foreignKeys.map((fk) => fk.column),
  'remote_key',
];

/** The columns an event of `r` records (its deliveries' data), by the trigger and by scheduled events alike. */
export const recordedColumns = (r: Resource): string[] => columnsOf(r, (f) => f.recorded);

/** The trigger's arguments for `r`. */
function argumentsOf(r: Resource): string[] {
  const state = r.fields.find((f) => f.spec.type === 'state')?.column ?? '';
  const recorded = recordedColumns(r);
  // a rule may read any served column, bookkeeping ones too
  const kept = r.access.view ? [...columnsOf(r, (f) => f.readable), 'id', 'created_by'] : [];
  return [r.key, eventPrefix(r), state, `{${recorded.join(',')}}`, `{${kept.join(',')}}`];
}

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export async function syncCaptureTriggers(db: Knex, resources: readonly Resource[]): Promise<void> {
  // every table, with the trigger's arguments as last set (its comment: no parsing of tgargs); a
  // declared table not created yet (makemigrations compares before generating) is left for later
  const { rows } = (await db.raw(
    `select c.relname as "table", (select obj_description(t.oid, 'pg_trigger') from pg_trigger t where t.tgrelid = c.oid and t.tgname = ?) as args
       from pg_class c where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`,
    [TRIGGER],
  )) as { rows: { table: string; args: string | null }[] };
  const have = new Map(rows.map((r) => [r.table, r.args]));
  for (const r of resources) {
    const args = argumentsOf(r).map(literal).join(', ');
    if (!have.has(r.table) || have.get(r.table) === args) continue;
    await db.raw(`create or replace trigger ${TRIGGER} after insert or update or delete on ${q(r.table)} for each row execute function bms_capture(${args})`);
    await db.raw(`comment on trigger ${TRIGGER} on ${q(r.table)} is ${literal(args)}`);
  }
}
