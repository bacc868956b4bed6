/**
 * No privilege escalation through the API: a non-superuser can neither grant what they do not hold
 * nor take over a record that holds more than they do. A record "holds" the permissions of its
 * permission-list fields and of the records its `privileged` links point at; `superuserOnly`
 * fields belong to superusers. Runs inside the write's transaction, after the visibility check.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { permissionDenied } from '../errors.js';
import type { Resource } from '../registry/resource.js';

type Row = Record<string, unknown>;

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

async function permissionsOfRecords(trx: Knex.Transaction, resource: Resource, ids: number[]): Promise<string[]> {
  const field = resource.fields.find((f) => f.spec.type === 'permissions');
  if (!field || ids.length === 0) return [];
  const rows = (await trx(resource.table).whereIn('id', ids).select(field.column!)) as Row[];
  return rows.flatMap((r) => asArray(r[field.column!]) as string[]);
}

/** `values` are the new write values (empty for a delete); `existing` the record as served. */
export async function checkPrivileges(
  trx: Knex.Transaction,
  resource: Resource,
  user: Principal,
  values: Record<string, unknown>,
  existing: Row | undefined,
): Promise<void> {
  if (user.isSuperuser) return;
  const required = new Set<string>();
  for (const f of resource.fields) {
    const s = f.spec;
    if (s.type === 'boolean' && s.superuserOnly) {
      const current = existing ? existing[f.name] : (s.default ?? false);
      if (current === true || (f.name in values && values[f.name] !== current)) throw permissionDenied();
    }
    if (s.type === 'permissions') {
      for (const name of [...asArray(existing?.[f.name]), ...asArray(values[f.name])]) required.add(name as string);
    }
  }
  for (const m of resource.manyToMany) {
    if (!m.spec.privileged) continue;
    const ids = [...asArray(existing?.[m.name]), ...asArray(values[m.writeName])] as number[];
    for (const name of await permissionsOfRecords(trx, m.target, [...new Set(ids)])) required.add(name);
  }
  for (const name of required) if (!user.permissions.has(name)) throw permissionDenied();
}
