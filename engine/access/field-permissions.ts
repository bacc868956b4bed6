/**
 * Field-level permissions (a field's or relation's `read` and `write`), compiled once per resource
 * per set of permissions a caller lacks, as visibility.ts compiles record rules: the mask says which
 * record keys the caller is not served (so lists, details, `fields=`, `expand`, filters, ordering
 * and search leave them out) and which body keys it may not set. Every surface asks `fieldMask`.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { rowsOf } from '../crud/rows.js';
import { permissionDenied } from '../errors.js';
import type { Resource } from '../registry/resource.js';
import { entityTag, type Precondition } from '../storage/entity-tag.js';
import { joinSelectParts, ROW, selectList, selectParts, type SelectPart } from '../storage/serialise.js';
import { prepared } from '../storage/statements.js';
import { revealValues } from '../storage/field-encryption.js';
import { col, frag, q } from '../storage/sql.js';

/** A field or relation that names a permission. */
interface Guarded {
  /** Its record key. */
  name: string;
  /** Its body key (`x_id` of a foreign key). */
  writeName: string;
  read: string | undefined;
  write: string | undefined;
}

export interface FieldMask {
  /** One text per compiled mask: '' when nothing is withheld. */
  key: string;
  /** Record keys (read names) the caller is not served and cannot filter, order or search by. */
  hidden: ReadonlySet<string>;
  /** Body key → record key of what the caller may not set. */
  unwritable: ReadonlyMap<string, string>;
  /** The record's select parts at `alias` without the hidden keys. */
  parts(alias?: string): SelectPart[];
  /** `parts` as a select list. */
  list(alias?: string): string;
  /** The `?search=` columns the caller may search in. */
  search: string[];
}

interface Compiled {
  guarded: Guarded[];
  /** The permissions the guarded entries name, in a fixed order. */
  names: string[];
  masks: Map<string, FieldMask>;
}

const compiledMasks = new WeakMap<Resource, Compiled>();

function guardedOf(resource: Resource): Guarded[] {
  const entries = [
    ...resource.fields.map((f) => ({ name: f.name, writeName: f.name, read: f.spec.read, write: f.spec.write })),
    ...[...resource.foreignKeys, ...resource.manyToMany].map((r) => ({ name: r.name, writeName: r.writeName, read: r.spec.read, write: r.spec.write })),
  ];
  return entries.filter((e) => e.read !== undefined || e.write !== undefined);
}

function compiledOf(resource: Resource): Compiled {
  let c = compiledMasks.get(resource);
  if (!c) {
    const guarded = guardedOf(resource);
    const names = [...new Set(guarded.flatMap((g) => [g.read, g.write]).filter((n) => n !== undefined))].sort();
    compiledMasks.set(resource, (c = { guarded, names, masks: new Map() }));
  }
  return c;
}

function compileMask(resource: Resource, guarded: readonly Guarded[], lacking: ReadonlySet<string>, key: string): FieldMask {
  const hidden = new Set(guarded.filter((g) => g.read !== undefined && lacking.has(g.read)).map((g) => g.name));
  const unwritable = new Map(guarded.filter((g) => g.write !== undefined && lacking.has(g.write)).map((g) => [g.writeName, g.name]));
  const lists = new Map<string, string>();
  const parts = (alias = ROW) => selectParts(resource, undefined, alias).filter((p) => !hidden.has(p.name));
  return {
    key,
    hidden,
    unwritable,
    parts,
    list(alias = ROW) {
      let list = lists.get(alias);
      if (list === undefined) lists.set(alias, (list = joinSelectParts(parts(alias))));
      return list;
    },
    search: resource.fields.filter((f) => f.spec.search && f.column && !hidden.has(f.name)).map((f) => col(ROW, f.column!)),
  };
}

/** What `user` is not served of `resource`, nor may set: compiled once per set of permissions lacking. */
export function fieldMask(resource: Resource, user: Principal): FieldMask {
  const c = compiledOf(resource);
  const lacking = new Set(user.isSuperuser ? [] : c.names.filter((n) => !user.permissions.has(n)));
  const key = [...lacking].join(',');
  let mask = c.masks.get(key);
  if (!mask) c.masks.set(key, (mask = compileMask(resource, c.guarded, lacking, key)));
  return mask;
}

/** Whether any field or relation of `resource` names a permission. */
export const hasFieldPermissions = (resource: Resource): boolean => compiledOf(resource).guarded.length > 0;

/** The `read` and `write` permissions of each guarded record key (the OpenAPI document's `x-permission`). */
export function fieldPermissionsOf(resource: Resource): Map<string, { read?: string; write?: string }> {
  return new Map(compiledOf(resource).guarded.map((g) => [g.name, { ...(g.read && { read: g.read }), ...(g.write && { write: g.write }) }]));
}

/**
 * 403 naming each field of `values` that `user` may not set, before anything is written. `served`
 * reads the record's text as `user` is served it (absent: a create): a value equal to the stored one
 * sets nothing, so a PUT of a GET body that holds a field its caller may read but not write passes.
 */
export async function refuseUnwritable(
  resource: Resource,
  user: Principal,
  values: Record<string, unknown>,
  served?: () => Promise<string>,
): Promise<void> {
  const { unwritable } = fieldMask(resource, user);
  const named = [...unwritable].filter(([writeName]) => writeName in values);
  if (named.length === 0) return;
  const record = served && (JSON.parse(revealValues(await served())) as Record<string, unknown>);
  const changed = named.filter(([writeName, name]) => !record || !(name in record) || JSON.stringify(record[name]) !== JSON.stringify(values[writeName]));
  if (changed.length === 0) {
    for (const [writeName] of named) delete values[writeName];
    return;
  }
  throw permissionDenied(`You do not have permission to change ${changed.map(([, name]) => `"${name}"`).join(', ')}.`);
}

/**
 * A caller's If-Match names the tag of the record as they were served it; the writes compare the
 * whole record's tag. Where their mask hides something, both texts are read at once (one snapshot):
 * if theirs matches, the write is to hold the whole record's tag as it was then, else none (412,
 * after the write's own 404 and 403).
 */
export async function unmaskedPrecondition(db: Knex, resource: Resource, user: Principal, id: number, precondition: Precondition | undefined): Promise<Precondition | undefined> {
  const mask = fieldMask(resource, user);
  if (precondition === undefined || precondition === '*' || mask.hidden.size === 0) return precondition;
  const json = (list: string) => `(select row_to_json(r)::text from (select ${list}) r)`;
  const sql = frag(`select ${json(mask.list())} as masked, ${json(selectList(resource))} as whole from ${q(resource.table)} ${ROW} where ${ROW}.id = ?`, [id]);
  const [row] = rowsOf(await prepared(db, sql));
  return row && precondition.includes(entityTag(row.masked as string)) ? [entityTag(row.whole as string)] : [];
}

/**
 * Boot check: every permission a field or relation names is one some resource declares (its model
 * permissions or `extraPermissions`), so a typo cannot leave a field open or shut for everyone.
 */
export function checkFieldPermissions(resources: readonly Resource[], declared: ReadonlySet<string>): void {
  for (const r of resources) {
    for (const g of guardedOf(r)) {
      for (const name of [g.read, g.write]) {
        if (name !== undefined && !declared.has(name)) {
          throw new Error(`Resource "${r.key}": "${g.name}" names the permission "${name}", which no resource declares (add it to a resource's extraPermissions).`);
        }
      }
    }
  }
}
