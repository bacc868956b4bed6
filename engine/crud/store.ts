/**
 * Rows of a resource: reads of records already serialised by SQL, and what writes share: validated
 * values as column values (passwords hashed, JSON and arrays encoded), link and state-log rows, and
 * inserts of many rows from one JSON parameter (the bulk writer).
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { typeOf } from '../fields/index.js';
import type { Field, ManyToManyRef, Resource } from '../registry/resource.js';
import type { StateMove } from '../write/state.js';
import { selectList, ROW } from '../storage/serialise.js';
import { q, type Fragment } from '../storage/sql.js';
import type { Values } from './body.js';
import { uniqueIds, type Row } from './rows.js';

export type Db = Knex | Knex.Transaction;

/** One query for any number of records: relations come as correlated array subqueries. */
export function selectRecords(db: Db, resource: Resource, where: readonly Fragment[]): Knex.QueryBuilder {
  const qb = db(`${resource.table} as ${ROW}`).select(db.raw(selectList(resource)));
  for (const w of where) qb.whereRaw(w.sql, w.bindings as Knex.RawBinding[]);
  return qb;
}

export async function fetchRecord(db: Db, resource: Resource, id: number): Promise<Row> {
  return (await selectRecords(db, resource, [{ sql: `${ROW}.id = ?`, bindings: [id] }]).first()) as Row;
}

/** The value as stored: each type says (passwords hashed, permission lists without repeats). */
async function storedValue(f: Field, value: unknown): Promise<unknown> {
  if (value === null) return null;
  const type = typeOf(f.spec);
  return type.store ? type.store(f.spec, value) : value;
}

/** Column → stored value of the fields, foreign keys and remote key in `values` (plain JSON, for bulk inserts too). */
export async function rowValues(resource: Resource, values: Values): Promise<Row> {
  const row: Row = {};
  for (const f of resource.fields) {
    if (f.column && f.name in values) row[f.column] = await storedValue(f, values[f.name]);
  }
  for (const fk of resource.foreignKeys) if (fk.writeName in values) row[fk.column] = values[fk.writeName];
  if ('remote_key' in values) row.remote_key = values.remote_key;
  return row;
}

/** Join-table rows linking record `id` through `m` to the ids in `values`. */
export function linkRows(m: ManyToManyRef, id: number, values: Values): Row[] {
  return uniqueIds(values[m.writeName]).map((t) => ({ [m.spec.sourceColumn]: id, [m.spec.targetColumn]: t }));
}

/** State-log rows for the moves of record `id`. */
export function moveRows(resource: Resource, id: number, moves: readonly StateMove[], user: Principal): Row[] {
  return moves.map((m) => ({ resource: resource.key, record_id: id, field: m.field.name, from_state: m.from, to_state: m.to, changed_by: user.id }));
}

/** Inserts rows from one JSON parameter; rows with the same columns go in one statement, so omitted columns keep their defaults. */
export async function insertJson(db: Db, table: string, rows: readonly Row[]): Promise<void> {
  const byColumns = new Map<string, Row[]>();
  for (const row of rows) {
    const key = Object.keys(row).join(',');
    const group = byColumns.get(key);
    if (group) group.push(row);
    else byColumns.set(key, [row]);
  }
  for (const group of byColumns.values()) {
    const columns = Object.keys(group[0]!).map(q).join(', ');
    await db.raw(`insert into ${q(table)} (${columns}) select ${columns} from json_populate_recordset(null::${q(table)}, ?::json)`, [JSON.stringify(group)]);
  }
}
