/**
 * `/api/audit`: the trail the change capture writes (migration 0260), read-only. Superusers see
 * every entry; others with `audit.view_entry` those of the resources they hold the view permission
 * of, where the resource's view rule admits the record now (or, once deleted, as its delete entry
 * left it) and in every state the entry recorded: the values it left (its snapshot, migration 0280)
 * and, for an update, those before it. One predicate per resource, inside the list's one statement.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { viewsEveryState } from '../access/visibility.js';
import { fieldMask, hasFieldPermissions } from '../access/field-permissions.js';
import { TableList } from '../crud/table-list.js';
import { isoTimestamp } from '../fields/values.js';
import { mayPerform } from '../http/resource-routes.js';
import type { RouteTable } from '../http/route-table.js';
import { mountTable } from '../http/table-routes.js';
import type { Resource } from '../registry/resource.js';
import { FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

export const AUDIT_PERMISSION = 'audit.view_entry';
export const AUDIT_PATH = '/api/audit';

const entryJson = (changes: string) => `json_build_object('id', e.id, 'at', ${isoTimestamp('e.at')}, 'user', e.user_id, 'action', e.action, 'resource', e.resource,
  'record_id', e.record_id, 'changes', ${changes}, 'request_id', e.request_id)`;
const ENTRY_JSON = entryJson('e.changes');
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The entry JSON without the recorded columns `user`'s field permissions hide (access/field-permissions.ts); built once per set of masks. */
function maskedEntries(guarded: readonly Resource[]): (user: Principal) => string {
  const built = new Map<string, string>();
  return (user) => {
    const masks = guarded.map((r) => ({ r, mask: fieldMask(r, user) })).filter(({ mask }) => mask.hidden.size > 0);
    const key = masks.map(({ r, mask }) => `${r.key}:${mask.key}`).join(';');
    let json = built.get(key);
    if (json === undefined) {
      const columns = (r: Resource, hidden: ReadonlySet<string>) => r.fields.filter((f) => hidden.has(f.name) && f.column).map((f) => literal(f.column!));
      const cases = masks.map(({ r, mask }) => `when ${literal(r.key)} then e.changes - array[${columns(r, mask.hidden).join(', ')}]::text[]`);
      built.set(key, (json = entryJson(cases.length ? `case e.resource ${cases.join(' ')} else e.changes end` : 'e.changes')));
    }
    return json;
  };
}

const integer = { type: 'integer', description: '' } as const;
const text = { type: 'string', maxLength: 200, description: '' } as const;
const action = { type: 'enum', values: ['create', 'update', 'delete'], description: '' } as const;
const time = { type: 'datetime', description: '' } as const;

/**
 * The record's values now: its stored row, or once deleted those its delete entry left. A record
 * deleted unseen by the capture (the seed's writes) has none, so its entries stay hidden.
 */
const now = (r: Resource): Fragment =>
  frag(`coalesce((select to_jsonb(live) from ${q(r.table)} live where live.id = e.record_id),
    (select d.snapshot from audit_entries d where d.resource = e.resource and d.record_id = e.record_id and d.action = 'delete' order by d.id desc limit 1))`);
/** The values the entry recorded: those it left, and before an update, those with each changed field's old value. */
const LEFT = frag('e.snapshot');
const BEFORE = frag(`case when e.action = 'update' then e.snapshot || (select jsonb_object_agg(c.key, c.value -> 0) from jsonb_each(e.changes) c) else e.snapshot end`);

/** Entries `user` may see: of records they can view now and could view in every state the entry recorded. */
function visibleEntries(resources: readonly Resource[], user: Principal): Fragment[] {
  if (user.isSuperuser) return [];
  const each = resources
    .filter((r) => mayPerform(user, r.permissions.view))
    .map((r) => joinFragments([frag('e.resource = ?', [r.key]), ...[viewsEveryState(r, user, [now(r), LEFT, BEFORE])].filter((p) => p !== null)], 'and'));
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
  mountTable(routes, AUDIT_PATH, {
    permissions: { view: AUDIT_PERMISSION },
    list: entries,
    visible: (user) => visibleEntries(resources, user),
    json: maskedEntries(resources.filter(hasFieldPermissions)),
  });
}
