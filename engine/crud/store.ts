/**
 * Reads and writes rows of a resource. Reads return records already serialised by SQL; writes
 * turn validated values into column values (hashing passwords, encoding JSON and arrays) and
 * keep many-to-many links and the state log in the same transaction.
 */
import type { Knex } from 'knex';
import { Model } from 'objection';
import type { Principal } from '../auth/users.js';
import { typeOf } from '../fields/index.js';
import type { Field, ManyToManyRef, Resource } from '../registry/resource.js';
import { selectList, ROW } from '../storage/serialise.js';
import { q, type Fragment } from '../storage/sql.js';
import type { Values } from './body.js';
import { uniqueIds, type Row } from './checks.js';

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

/** The row for a knex write: types whose values the driver cannot type (JSON, arrays) bind them explicitly. */
async function columnValues(db: Db, resource: Resource, values: Values): Promise<Row> {
  const row = await rowValues(resource, values);
  for (const f of resource.fields) {
    const v = f.column ? row[f.column] : undefined;
    const bind = typeOf(f.spec).bind;
    if (v !== undefined && v !== null && bind) row[f.column!] = bind(db, v);
  }
  return row;
}

/** Objection model classes bound to each resource's table, for row writes. */
const models = new WeakMap<Resource, typeof Model>();
function modelOf(resource: Resource): typeof Model {
  let m = models.get(resource);
  if (!m) {
    m = class extends Model {
      static override tableName = resource.table;
    };
    models.set(resource, m);
  }
  return m;
}

/** Join-table rows linking record `id` through `m` to the ids in `values`. */
export function linkRows(m: ManyToManyRef, id: number, values: Values): Row[] {
  return uniqueIds(values[m.writeName]).map((t) => ({ [m.spec.sourceColumn]: id, [m.spec.targetColumn]: t }));
}

/** `created`: the record has no links yet, so none are removed first. */
async function syncLinks(db: Db, resource: Resource, id: number, values: Values, created: boolean): Promise<void> {
  for (const m of resource.manyToMany) {
    if (!(m.writeName in values)) continue;
    if (!created) await db(m.spec.table).where(m.spec.sourceColumn, id).delete();
    const rows = linkRows(m, id, values);
    if (rows.length) await db(m.spec.table).insert(rows);
  }
}

export interface StateMove {
  field: Field;
  from: string | null;
  to: string;
}

/** State-log rows for the moves of record `id`. */
export function moveRows(resource: Resource, id: number, moves: readonly StateMove[], user: Principal): Row[] {
  return moves.map((m) => ({ resource: resource.key, record_id: id, field: m.field.name, from_state: m.from, to_state: m.to, changed_by: user.id }));
}

async function logMoves(db: Db, resource: Resource, id: number, moves: StateMove[], user: Principal): Promise<void> {
  if (moves.length) await db('state_changes').insert(moveRows(resource, id, moves, user));
}

export async function insertRecord(trx: Knex.Transaction, resource: Resource, values: Values, user: Principal, moves: StateMove[]): Promise<number> {
  const row = await columnValues(trx, resource, values);
  const inserted = await modelOf(resource).query(trx).insert({ ...row, created_by: user.id }).returning('id');
  const id = (inserted as unknown as { id: number }).id;
  await syncLinks(trx, resource, id, values, true);
  await logMoves(trx, resource, id, moves, user);
  return id;
}

export async function updateRecord(trx: Knex.Transaction, resource: Resource, id: number, values: Values, user: Principal, moves: StateMove[]): Promise<void> {
  const row = await columnValues(trx, resource, values);
  await modelOf(resource).query(trx).patch({ ...row, modified: trx.fn.now() }).where('id', id);
  await syncLinks(trx, resource, id, values, false);
  await logMoves(trx, resource, id, moves, user);
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
