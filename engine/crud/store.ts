/**
 * Reads and writes rows of a resource. Reads return records already serialised by SQL; writes
 * turn validated values into column values (hashing passwords, encoding JSON and arrays) and
 * keep many-to-many links and the state log in the same transaction.
 */
import type { Knex } from 'knex';
import { Model } from 'objection';
import type { Principal } from '../auth/users.js';
import { hashPassword } from '../auth/passwords.js';
import type { Field, Resource } from '../registry/resource.js';
import { selectList, ROW } from '../storage/serialise.js';
import type { Fragment } from '../storage/sql.js';
import type { Values } from './body.js';
import { uniqueIds, type Row } from './checks.js';

export type Db = Knex | Knex.Transaction;

const selects = new WeakMap<Resource, string>();
const selectOf = (r: Resource): string => {
  let s = selects.get(r);
  if (s === undefined) selects.set(r, (s = selectList(r)));
  return s;
};

/** One query for any number of records: relations come as correlated array subqueries. */
export function selectRecords(db: Db, resource: Resource, where: readonly Fragment[]): Knex.QueryBuilder {
  const qb = db(`${resource.table} as ${ROW}`).select(db.raw(selectOf(resource)));
  for (const w of where) qb.whereRaw(w.sql, w.bindings as Knex.RawBinding[]);
  return qb;
}

export async function fetchRecord(db: Db, resource: Resource, id: number): Promise<Row> {
  return (await selectRecords(db, resource, [{ sql: `${ROW}.id = ?`, bindings: [id] }]).first()) as Row;
}

/** A Postgres array literal for text[] parameters (drivers differ in how they send JS arrays). */
const textArray = (items: string[]): string => `{${items.map((s) => `"${s.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

/** Boxed, because a knex raw is a thenable: returned bare from an async function, it would run on its own. */
async function columnValue(db: Db, f: Field, value: unknown): Promise<{ v: unknown }> {
  if (value === null) return { v: null };
  switch (f.spec.type) {
    case 'password':
      return { v: await hashPassword(value as string) };
    case 'json':
      return { v: db.raw('?::jsonb', [JSON.stringify(value)]) };
    case 'permissions':
      return { v: db.raw('?::text[]', [textArray([...new Set(value as string[])])]) };
    default:
      return { v: value };
  }
}

async function columnValues(db: Db, resource: Resource, values: Values): Promise<Row> {
  const row: Row = {};
  for (const f of resource.fields) {
    if (f.column && f.name in values) row[f.column] = (await columnValue(db, f, values[f.name])).v;
  }
  for (const fk of resource.foreignKeys) if (fk.writeName in values) row[fk.column] = values[fk.writeName];
  if ('remote_key' in values) row.remote_key = values.remote_key;
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

async function syncLinks(db: Db, resource: Resource, id: number, values: Values): Promise<void> {
  for (const m of resource.manyToMany) {
    if (!(m.writeName in values)) continue;
    const { table, sourceColumn, targetColumn } = m.spec;
    await db(table).where(sourceColumn, id).delete();
    const ids = uniqueIds(values[m.writeName]);
    if (ids.length) await db(table).insert(ids.map((t) => ({ [sourceColumn]: id, [targetColumn]: t })));
  }
}

export interface StateMove {
  field: Field;
  from: string | null;
  to: string;
}

async function logMoves(db: Db, resource: Resource, id: number, moves: StateMove[], user: Principal): Promise<void> {
  if (!moves.length) return;
  await db('state_changes').insert(
    moves.map((m) => ({ resource: resource.key, record_id: id, field: m.field.name, from_state: m.from, to_state: m.to, changed_by: user.id })),
  );
}

export async function insertRecord(trx: Knex.Transaction, resource: Resource, values: Values, user: Principal, moves: StateMove[]): Promise<number> {
  const row = await columnValues(trx, resource, values);
  const inserted = await modelOf(resource).query(trx).insert({ ...row, created_by: user.id }).returning('id');
  const id = (inserted as unknown as { id: number }).id;
  await syncLinks(trx, resource, id, values);
  await logMoves(trx, resource, id, moves, user);
  return id;
}

export async function updateRecord(trx: Knex.Transaction, resource: Resource, id: number, values: Values, user: Principal, moves: StateMove[]): Promise<void> {
  const row = await columnValues(trx, resource, values);
  await modelOf(resource).query(trx).patch({ ...row, modified: trx.fn.now() }).where('id', id);
  await syncLinks(trx, resource, id, values);
  await logMoves(trx, resource, id, moves, user);
}

export async function deleteRecord(trx: Knex.Transaction, resource: Resource, id: number): Promise<void> {
  await modelOf(resource).query(trx).deleteById(id);
}
