/**
 * `/api/audit`: the trail the change capture writes (migration 0260), read-only. Superusers see
 * every entry; others with `audit.view_entry` those of records they can view now (so not those of
 * deleted records), as SQL: one `exists` per resource they hold the view permission of.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { TableList } from '../crud/table-list.js';
import { isoTimestamp } from '../fields/values.js';
import { mayPerform } from '../http/resource-routes.js';
import type { RouteTable } from '../http/route-table.js';
import { mountTable } from '../http/table-routes.js';
import type { Resource } from '../registry/resource.js';
import { FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

export const AUDIT_PERMISSION = 'audit.view_entry';
export const AUDIT_PATH = '/api/audit';

const ENTRY_JSON = `json_build_object('id', e.id, 'at', ${isoTimestamp('e.at')}, 'user', e.user_id, 'action', e.action, 'resource', e.resource,
  'record_id', e.record_id, 'changes', e.changes, 'request_id', e.request_id)`;

const integer = { type: 'integer', description: '' } as const;
const text = { type: 'string', maxLength: 200, description: '' } as const;
const action = { type: 'enum', values: ['create', 'update', 'delete'], description: '' } as const;
const time = { type: 'datetime', description: '' } as const;

/** Entries of records `user` can view. */
function visibleEntries(resources: readonly Resource[], user: Principal): Fragment[] {
  if (user.isSuperuser) return [];
  const each = resources
    .filter((r) => mayPerform(user, r.permissions.view))
    .map((r) => {
      const seen = joinFragments([frag('audited.id = e.record_id'), ...[accessPredicate(r, 'view', user, 'audited')].filter((p) => p !== null)], 'and');
      return frag(`(e.resource = ? and exists (select 1 from ${q(r.table)} audited where ${seen.sql}))`, [r.key, ...seen.bindings]);
    });
  return [each.length ? joinFragments(each, 'or') : FALSE];
}

export function mountAudit(routes: RouteTable, db: Knex, resources: readonly Resource[]): void {
  const entries = new TableList(db, 'audit_entries', ENTRY_JSON, [
    { param: 'resource', column: 'resource', type: text, op: 'exact' },
    { param: 'record_id', column: 'record_id', type: integer, op: 'exact' },
    { param: 'user', column: 'user_id', type: integer, op: 'exact' },
    { param: 'action', column: 'action', type: action, op: 'exact' },
    { param: 'at_from', column: 'at', type: time, op: 'from' },
    { param: 'at_to', column: 'at', type: time, op: 'to' },
  ]);
  mountTable(routes, AUDIT_PATH, { permissions: { view: AUDIT_PERMISSION }, list: entries, visible: (user) => visibleEntries(resources, user) });
}
