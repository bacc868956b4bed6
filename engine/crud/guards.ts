/**
 * Guards run inside a write's transaction before records change, shared by single-record writes
 * and batch actions: lock the rows the caller can see, refuse records the caller may see but not
 * change (403), and refuse deleting records that `protect` foreign keys still point at (409).
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { conflict, permissionDenied } from '../errors.js';
import type { Resource } from '../registry/resource.js';
import { ROW } from '../storage/serialise.js';
import { frag } from '../storage/sql.js';
import { stillReferenced, stillReferencedSql, type StillReferenced } from '../write/protect.js';
import { rowsOf, type Row } from './checks.js';
import { selectRecords } from './store.js';

const idIn = (ids: readonly number[]) => frag(`${ROW}.id in (${ids.map(() => '?').join(', ')})`, [...ids]);

/** The visible records among `ids`, as served, their rows locked in id order (so batches cannot deadlock). */
export async function lockVisible(trx: Knex.Transaction, resource: Resource, user: Principal, ids: readonly number[]): Promise<Row[]> {
  if (!ids.length) return [];
  const view = accessPredicate(resource, 'view', user, ROW);
  return (await selectRecords(trx, resource, [idIn(ids), ...(view ? [view] : [])])
    .orderBy(`${ROW}.id`)
    .forUpdate(ROW)) as Row[];
}

/** 403 unless the caller may change every one of the (visible) records `ids`. */
export async function refuseUnchangeable(trx: Knex.Transaction, resource: Resource, user: Principal, ids: readonly number[]): Promise<void> {
  const change = accessPredicate(resource, 'change', user, ROW);
  if (!change || !ids.length) return;
  const allowed = (await trx(`${resource.table} as ${ROW}`)
    .whereIn(`${ROW}.id`, ids)
    .whereRaw(change.sql, change.bindings as Knex.RawBinding[])
    .count({ n: '*' })) as { n: string | number }[];
  if (Number(allowed[0]!.n) < ids.length) throw permissionDenied();
}

/** 409 naming the first record among `ids` that a `protect` foreign key still points at, and by how many records. */
export async function refuseIfProtected(trx: Knex.Transaction, resource: Resource, ids: readonly number[]): Promise<void> {
  const held = stillReferencedSql(resource, '(select ids from w_ids)::int[]');
  if (!held || !ids.length) return;
  const [row] = rowsOf(await trx.raw(`with w_ids as (select ?::int[] as ids) select ${held} as d`, [`{${ids.join(',')}}`]));
  if (row?.d) throw conflict(stillReferenced(resource, row.d as StillReferenced));
}
