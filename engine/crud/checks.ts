/**
 * Checks that need the database, run inside the write's transaction: referenced records exist
 * and are visible, linked records share the declared parent, trees stay acyclic, state moves
 * follow the declared transitions, and record rules (order, no overlap) hold.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import type { FieldErrorCollector } from '../errors.js';
import type { RecordRule } from '../declare/index.js';
import { type ForeignKeyRef, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { overlaps } from '../write/no-overlap.js';
import { checkOrder } from '../write/order.js';
import { missingReference } from '../write/reference.js';
import { strayLink } from '../write/shared-parent.js';
import { checkStates } from '../write/state.js';
import { closesCycle, ownAncestor } from '../write/tree.js';
import { rowsOf, uniqueIds, type Row } from './rows.js';
import type { Values } from './body.js';


export interface CheckContext {
  trx: Knex.Transaction;
  user: Principal;
  errors: FieldErrorCollector;
  /** The record being changed, as served (read names); undefined on create. */
  existing: Row | undefined;
}

type RuleOf<K extends RecordRule['kind']> = Extract<RecordRule, { kind: K }>;

export const invalidPk = (id: unknown): string => missingReference({ id });

/** Visible rows of `target` among `ids`, with the extra columns asked for. */
async function visibleRows(c: CheckContext, target: Resource, ids: number[], columns: string[] = []): Promise<Row[]> {
  const predicate = accessPredicate(target, 'view', c.user, 't');
  const qb = c.trx(`${target.table} as t`).select(['t.id', ...columns.map((x) => `t.${x}`)]).whereIn('t.id', ids);
  if (predicate) qb.whereRaw(predicate.sql, predicate.bindings as Knex.RawBinding[]);
  return (await qb) as Row[];
}

/** The value after the write: the new one if given, else the current one (under its read name). */
export function nextValue(c: Pick<CheckContext, 'existing'>, values: Values, writeName: string, readName: string): unknown {
  return writeName in values ? values[writeName] : c.existing?.[readName];
}

async function checkForeignKey(c: CheckContext, resource: Resource, fk: ForeignKeyRef, value: unknown): Promise<void> {
  if (value === null || value === undefined) return;
  const rows = await visibleRows(c, fk.target, [value as number]);
  if (rows.length === 0) return c.errors.add(fk.writeName, invalidPk(value));
  if (fk.spec.tree && c.existing) {
    const cycle = await c.trx.raw(`select ${closesCycle(resource, fk, '?', '?')} as cycle`, [value as number, c.existing.id as number]);
    if (rowsOf(cycle)[0]?.cycle === true) c.errors.add(fk.writeName, ownAncestor(resource, fk, { parent: value }));
  }
}


async function checkManyToMany(c: CheckContext, resource: Resource, m: ManyToManyRef, ids: number[], values: Values): Promise<void> {
  const same = m.spec.sameParent;
  const remoteFk = same ? m.target.foreignKeys.find((r) => r.name === same.remote)! : undefined;
  const rows = ids.length ? await visibleRows(c, m.target, ids, remoteFk ? [remoteFk.column] : []) : [];
  const found = new Map(rows.map((r) => [r.id as number, r]));
  for (const id of ids) {
    const row = found.get(id);
    if (!row) {
      c.errors.add(m.writeName, invalidPk(id));
      continue;
    }
    const localFk = same && resource.foreignKeys.find((r) => r.name === same.local)!;
    if (same && remoteFk && localFk && !c.errors.has(localFk.writeName)) {
      const parent = nextValue(c, values, localFk.writeName, localFk.name);
      if (parent !== null && parent !== undefined && row[remoteFk.column] !== parent) {
        c.errors.add(m.writeName, strayLink(m, { target: id, parent }));
      }
    }
  }
}

/** Ids currently linked through `m`, in ascending order, for re-checking when the shared parent changes. */
async function linkedIds(c: CheckContext, m: ManyToManyRef): Promise<number[]> {
  if (!c.existing) return [];
  return (await c.trx(m.spec.table).where(m.spec.sourceColumn, c.existing.id as number).orderBy(m.spec.targetColumn).pluck(m.spec.targetColumn)) as number[];
}


export async function checkReferences(c: CheckContext, resource: Resource, values: Values): Promise<void> {
  for (const fk of resource.foreignKeys) {
    if (fk.writeName in values && !c.errors.has(fk.writeName)) await checkForeignKey(c, resource, fk, values[fk.writeName]);
  }
  for (const m of resource.manyToMany) {
    if (c.errors.has(m.writeName)) continue;
    if (m.writeName in values) {
      await checkManyToMany(c, resource, m, uniqueIds(values[m.writeName]), values);
    } else if (m.spec.sameParent) {
      const localFk = resource.foreignKeys.find((r) => r.name === m.spec.sameParent!.local)!;
      if (c.existing && localFk.writeName in values && values[localFk.writeName] !== c.existing[localFk.name]) {
        await checkManyToMany(c, resource, m, await linkedIds(c, m), values);
      }
    }
  }
}



async function checkNoOverlap(c: CheckContext, resource: Resource, rule: RuleOf<'noOverlap'>, values: Values): Promise<void> {
  const fk = resource.foreignKeys.find((r) => r.name === rule.scope)!;
  const scope = nextValue(c, values, fk.writeName, fk.name);
  const [start, end] = [nextValue(c, values, rule.start, rule.start), nextValue(c, values, rule.end, rule.end)];
  if (scope == null || start == null || end == null || c.errors.has()) return;
  // serialise concurrent writers for the same scope record, so two overlapping periods cannot both pass
  await c.trx(fk.target.table).where('id', scope as number).forUpdate().first('id');
  const clash = (await c.trx(resource.table)
    .where(fk.column, scope as number)
    .whereNot('id', (c.existing?.id as number | undefined) ?? 0)
    .where(rule.start, '<', end as string)
    .where(rule.end, '>', start as string)
    .orderBy('id')
    .first('id')) as { id: number } | undefined;
  if (clash) c.errors.add(rule.start, overlaps(resource, rule, { other: clash.id }));
}

export async function checkRules(c: CheckContext, resource: Resource, values: Values): Promise<void> {
  for (const rule of resource.rules) {
    if (rule.kind === 'order') checkOrder(c, resource, rule, values);
    else await checkNoOverlap(c, resource, rule, values);
  }
}



export { checkOrder, checkStates, closesCycle, rowsOf, uniqueIds, type Row };
