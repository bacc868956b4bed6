/**
 * No privilege escalation through the API: what a non-superuser cannot do through their own rights
 * they cannot obtain by editing others. A record "holds":
 * - everything, when one of its `superuserOnly` flags is true;
 * - the permission names of its permission-list fields, and of the records its `privileged` links
 *   point at (a user holds their groups' permissions);
 * - when it is a principal of object access (a user, or a group named by `groupAmong` rules): every
 *   record those rules let it see or change.
 * A non-superuser may not change or delete a record holding anything they do not hold, may not give
 * permissions they lack, and may not link or unlink, through a `privileged` relation, a record holding
 * anything they do not. Each refusal is a 403. Runs inside the write's transaction, after visibility.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { permissionDenied, type FieldErrorCollector } from '../errors.js';
import { PRINCIPALS, type Field, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { reachesBeyond } from './reach.js';

type Row = Record<string, unknown>;

interface Rank {
  superuserFlags: Field[];
  permissionFields: Field[];
  privilegedLinks: ManyToManyRef[];
  /** Set for the principals of object access. */
  subject: 'user' | 'group' | undefined;
}

const ranks = new WeakMap<Resource, Rank>();

function rankOf(resource: Resource): Rank {
  let rank = ranks.get(resource);
  if (!rank) {
    rank = {
      superuserFlags: resource.fields.filter((f) => f.spec.type === 'boolean' && f.spec.superuserOnly === true),
      permissionFields: resource.fields.filter((f) => f.spec.type === 'permissions'),
      privilegedLinks: resource.manyToMany.filter((m) => m.spec.privileged === true),
      subject: resource.key === PRINCIPALS.user ? 'user' : resource.key === PRINCIPALS.group ? 'group' : undefined,
    };
    ranks.set(resource, rank);
  }
  return rank;
}

/** Whether records of the resource can hold anything (the registry refuses privileged links to others). */
export function canHoldRights(resource: Resource): boolean {
  const r = rankOf(resource);
  return r.superuserFlags.length > 0 || r.permissionFields.length > 0 || r.subject !== undefined;
}

/** Whether writes of the resource are checked for escalation at all (a superuser's never are). */
export function guardsRights(resource: Resource): boolean {
  return canHoldRights(resource) || rankOf(resource).privilegedLinks.length > 0;
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Permission names held by record `id` itself and through its privileged links. */
async function heldPermissions(trx: Knex.Transaction, resource: Resource, id: number): Promise<string[]> {
  const rank = rankOf(resource);
  const names: string[] = [];
  if (rank.permissionFields.length) {
    const row = (await trx(resource.table).where('id', id).first(rank.permissionFields.map((f) => f.column!))) as Row | undefined;
    for (const f of rank.permissionFields) names.push(...(asArray(row?.[f.column!]) as string[]));
  }
  for (const m of rank.privilegedLinks) {
    const fields = rankOf(m.target).permissionFields;
    if (!fields.length) continue;
    const rows = (await trx(`${m.target.table} as t`)
      .join(`${m.spec.table} as j`, `j.${m.spec.targetColumn}`, 't.id')
      .where(`j.${m.spec.sourceColumn}`, id)
      .select(fields.map((f) => `t.${f.column!}`))) as Row[];
    for (const row of rows) for (const f of fields) names.push(...(asArray(row[f.column!]) as string[]));
  }
  return names;
}

/** Whether record `id` of `resource` holds anything `user` does not. */
async function outranks(trx: Knex.Transaction, all: readonly Resource[], resource: Resource, id: number, user: Principal): Promise<boolean> {
  const rank = rankOf(resource);
  if (rank.superuserFlags.length) {
    const row = (await trx(resource.table).where('id', id).first(rank.superuserFlags.map((f) => f.column!))) as Row | undefined;
    if (rank.superuserFlags.some((f) => row?.[f.column!] === true)) return true;
  }
  if ((await heldPermissions(trx, resource, id)).some((name) => !user.permissions.has(name))) return true;
  return rank.subject !== undefined && reachesBeyond(trx, all, { kind: rank.subject, id }, { kind: 'user', id: user.id });
}

export interface PrivilegeCheck {
  trx: Knex.Transaction;
  /** Every resource of the registry: a principal's reach is checked against all of them. */
  all: readonly Resource[];
  user: Principal;
  /** Fields already refused by validation are not looked at again. */
  errors: FieldErrorCollector;
}

/** `values` are the new write values (empty for a delete); `existing` the record as served (undefined on create). */
export async function checkPrivileges(c: PrivilegeCheck, resource: Resource, values: Row, existing: Row | undefined): Promise<void> {
  const { trx, all, user, errors } = c;
  const rank = rankOf(resource);
  if (user.isSuperuser || !guardsRights(resource)) return;
  if (existing && (await outranks(trx, all, resource, existing.id as number, user))) throw permissionDenied();
  for (const f of rank.superuserFlags) {
    const current = existing ? existing[f.name] : ((f.spec as { default?: boolean }).default ?? false);
    if (f.name in values && values[f.name] !== current) throw permissionDenied();
  }
  for (const f of rank.permissionFields) {
    if (errors.has(f.name)) continue;
    for (const name of asArray(values[f.name])) if (!user.permissions.has(name as string)) throw permissionDenied();
  }
  for (const m of rank.privilegedLinks) {
    if (!(m.writeName in values) || errors.has(m.writeName)) continue;
    const before = new Set(asArray(existing?.[m.name]) as number[]);
    const after = new Set(asArray(values[m.writeName]) as number[]);
    const changed = [...before, ...after].filter((id) => before.has(id) !== after.has(id));
    for (const id of changed) if (await outranks(trx, all, m.target, id, user)) throw permissionDenied();
  }
}
