/**
 * Records that carry access to records of other kinds for the people they name: an employee's user
 * account opens the protected folders of the employee's unit, a membership opens its unit's.
 * Writing such a record must not let anyone, the writer included, reach through it a record the
 * writer cannot reach without it: after the write, inside its transaction, each user it names (and
 * the writer) is compared with the writer's reach not counting that record; beyond it, 403.
 * Only relations with a rule of their own carry access this way: `via … action` and inheritance
 * mirror the record's own visibility (children of a tracker follow the tracker), which a writer
 * who may change the record already has, and which therefore still counts for them.
 */
import type { Knex } from 'knex';
import type { AccessRule } from '../declare/index.js';
import type { Principal } from '../auth/users.js';
import { permissionDenied } from '../errors.js';
import { findForeignKey, findManyToMany, PRINCIPALS, type Resource } from '../registry/resource.js';
import { reachesBeyond } from './reach.js';
import type { Subject } from './visibility.js';

/** For one resource: the names access rules read on its rows, and the resources whose rules read them. */
interface Readers {
  names: Set<string>;
  by: Set<Resource>;
}

const cache = new WeakMap<readonly Resource[], Map<Resource, Readers>>();

function readersOf(all: readonly Resource[]): Map<Resource, Readers> {
  let map = cache.get(all);
  if (map) return map;
  map = new Map();
  const at = (r: Resource): Readers => {
    let e = map!.get(r);
    if (!e) map!.set(r, (e = { names: new Set(), by: new Set() }));
    return e;
  };
  // `crossed`: reached through a relation with a rule of its own, so the root's records depend on it
  const onRecord = (root: Resource, resource: Resource, rule: AccessRule, crossed: boolean): void => {
    const inherit = resource.access.inherit;
    if (inherit) at(resource).names.add(inherit.parent).add(inherit.when);
    walk(root, resource, rule, crossed);
  };
  const walk = (root: Resource, resource: Resource, rule: AccessRule, crossed: boolean): void => {
    const here = at(resource);
    if (crossed) here.by.add(root);
    if ('any' in rule) return rule.any.forEach((r) => walk(root, resource, r, crossed));
    if ('all' in rule) return rule.all.forEach((r) => walk(root, resource, r, crossed));
    if ('field' in rule) return void here.names.add(rule.field);
    if ('unset' in rule) return void here.names.add(rule.unset);
    if ('current' in rule) return void here.names.add(rule.current.start).add(rule.current.end);
    if ('userIs' in rule) return void here.names.add(rule.userIs);
    if ('userAmong' in rule) return void here.names.add(rule.userAmong);
    if ('groupAmong' in rule) return void here.names.add(rule.groupAmong);
    if ('among' in rule) {
      here.names.add(rule.among);
      return onRecord(root, findManyToMany(resource, rule.among)!.target, rule.rule, true);
    }
    if ('referencedBy' in rule) {
      const source = resource.referencedBy.find((r) => r.resource.key === rule.referencedBy && r.fk.name === rule.by)!.resource;
      at(source).names.add(rule.by);
      return onRecord(root, source, rule.rule, true);
    }
    here.names.add(rule.via);
    const fk = findForeignKey(resource, rule.via)!;
    const inner = 'rule' in rule ? rule.rule : fk.target.access[rule.action];
    if (inner) onRecord(root, fk.target, inner, crossed || 'rule' in rule);
  };
  for (const r of all) for (const rule of [r.access.view, r.access.change]) if (rule) onRecord(r, r, rule, false);
  cache.set(all, map);
  return map;
}

/** Whether records of `resource` carry access to records of other kinds (their writes are checked here, but a superuser's). */
export function carriesAccess(all: readonly Resource[], resource: Resource): boolean {
  return (readersOf(all).get(resource)?.by.size ?? 0) > 0;
}

/** The declared names a write touches: fields by name, relations by their write names. */
function touched(resource: Resource, values: Record<string, unknown>): Set<string> {
  const names = new Set(Object.keys(values));
  for (const r of [...resource.foreignKeys, ...resource.manyToMany]) if (r.writeName in values) names.add(r.name);
  return names;
}

/**
 * The users whose reach record `id` may carry: the caller, and the users its own keys name or the
 * records its foreign keys point at name (one step: a membership names its employee's account).
 */
async function namedUsers(trx: Knex.Transaction, resource: Resource, id: number, caller: number): Promise<Set<number>> {
  const users = new Set([caller]);
  const userKeys = (r: Resource) => r.foreignKeys.filter((fk) => fk.target.key === PRINCIPALS.user);
  const row = (await trx(resource.table).where('id', id).first(resource.foreignKeys.map((fk) => fk.column))) as Record<string, number | null> | undefined;
  if (!row) return users;
  for (const fk of userKeys(resource)) if (row[fk.column] != null) users.add(row[fk.column]!);
  for (const m of resource.manyToMany.filter((m) => m.target.key === PRINCIPALS.user)) {
    for (const u of (await trx(m.spec.table).where(m.spec.sourceColumn, id).pluck(m.spec.targetColumn)) as number[]) users.add(u);
  }
  for (const fk of resource.foreignKeys) {
    const keys = userKeys(fk.target);
    if (!keys.length || row[fk.column] == null || fk.target.key === PRINCIPALS.user) continue;
    const target = (await trx(fk.target.table).where('id', row[fk.column]!).first(keys.map((k) => k.column))) as Record<string, number | null> | undefined;
    for (const k of keys) if (target?.[k.column] != null) users.add(target[k.column]!);
  }
  return users;
}

/**
 * After record `id` of `resource` was created or changed with `values`: 403 when, through it, one
 * of the users it names reaches a record the writer cannot reach without it. Only for records that
 * carry access to others, and only when the write touches what access rules read.
 */
export async function checkGrants(
  trx: Knex.Transaction,
  all: readonly Resource[],
  user: Principal,
  resource: Resource,
  id: number,
  values: Record<string, unknown>,
  created: boolean,
): Promise<void> {
  if (user.isSuperuser || !carriesAccess(all, resource)) return;
  const readers = readersOf(all).get(resource)!;
  const names = touched(resource, values);
  if (!created && ![...readers.names].some((n) => names.has(n))) return;
  const except = { resource, id };
  const writer: Subject = { kind: 'user', id: user.id, except };
  for (const named of await namedUsers(trx, resource, id, user.id)) {
    const them: Subject = { kind: 'user', id: named };
    if (await reachesBeyond(trx, [...readers.by], them, writer, { ...them, except })) throw permissionDenied();
  }
}
