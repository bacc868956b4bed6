/**
 * `/api/audit`: the trail the change capture writes (migration 0260), read-only. Superusers see
 * every entry; others with its view permission those of the resources they hold the view permission
 * of, where the resource's view rule admits the record now (or, once deleted, as its delete entry
 * left it) and in every state the entry recorded: the values it left (its snapshot, migration 0280)
 * and, for an update, those before it. One predicate per resource, inside the list's one statement.
 */
import type { Principal } from '../auth/users.js';
import { viewsEveryState } from '../access/visibility.js';
import { ENTRY_ACTIONS } from './actions.js';
import { fieldMask, hasFieldPermissions } from '../access/field-permissions.js';
import { defineEngineTable } from '../declare/engine-table.js';
import { field } from '../declare/fields.js';
import { INT_MAX } from '../fields/values.js';
import { mayPerform } from '../http/resource-routes.js';
import type { Resource } from '../registry/resource.js';
import { literal } from '../storage/declared-triggers.js';
import { FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

const id = (description: string) => field.integer({ minimum: 1, maximum: INT_MAX, nullable: false, description, lookups: ['exact'] });

/**
 * The record's values now: its stored row, or once deleted those its delete entry left. A record
 * deleted unseen by the capture (the seed's writes) has none, so its entries stay hidden.
 */
const now = (r: Resource, e: string): Fragment =>
  frag(`coalesce((select to_jsonb(live) from ${q(r.table)} live where live.id = ${e}.record_id),
    (select d.snapshot from audit_entries d where d.resource = ${e}.resource and d.record_id = ${e}.record_id and d.action = 'delete' order by d.id desc limit 1))`);
/** The values the entry recorded: those it left, and before an update, those with each changed field's old value. */
const left = (e: string): Fragment => frag(`${e}.snapshot`);
const before = (e: string): Fragment =>
  frag(`case when ${e}.action = 'update' then ${e}.snapshot || (select jsonb_object_agg(c.key, c.value -> 0) from jsonb_each(${e}.changes) c) else ${e}.snapshot end`);

/**
 * Whether `user` may see the entry at row `e` of a record of `r`, given the view permission: they can
 * view the record now and could in every state the entry recorded; null when nothing restricts them.
 * The history of a record (engine/history/revisions.ts) shows the versions of the entries so seen.
 */
export const entryVisible = (r: Resource, user: Principal, e: string): Fragment | null => viewsEveryState(r, user, [now(r, e), left(e), before(e)]);

/**
 * Rows `e` of a table about the `resources`' records (its `resource` column their key) that `user`
 * may see: of the resources they may view, where `rule` (null: none) admits the record. The audit
 * trail's and the trash's.
 */
export function rowsOfViewable(resources: readonly Resource[], user: Principal, e: string, rule: (r: Resource) => Fragment | null): Fragment {
  const each = resources
    .filter((r) => mayPerform(user, r.permissions.view))
    .map((r) => joinFragments([frag(`${e}.resource = ?`, [r.key]), ...[rule(r)].filter((p) => p !== null)], 'and'));
  return each.length ? joinFragments(each, 'or') : FALSE;
}

/** Entries (row `e`) `user` may see: of records they can view now and could view in every state the entry recorded. */
const visibleEntries = (resources: readonly Resource[], user: Principal, e: string): Fragment => rowsOfViewable(resources, user, e, (r) => entryVisible(r, user, e));

/**
 * An entry's `changes` (row `e`) without the recorded columns `user`'s field permissions hide
 * (access/field-permissions.ts); undefined where they hide none. Built once per set of masks.
 */
function maskedChanges(guarded: readonly Resource[]): (user: Principal, e: string) => string | undefined {
  const built = new Map<string, string | undefined>();
  return (user, e) => {
    const masks = guarded.map((r) => ({ r, mask: fieldMask(r, user) })).filter(({ mask }) => mask.hidden.size > 0);
    const key = `${e}|${masks.map(({ r, mask }) => `${r.key}:${mask.key}`).join(';')}`;
    if (built.has(key)) return built.get(key);
    const columns = (r: Resource, hidden: ReadonlySet<string>) => r.fields.filter((f) => hidden.has(f.name) && f.column).map((f) => literal(f.column!));
    const cases = masks.map(({ r, mask }) => `when ${literal(r.key)} then ${e}.changes - array[${columns(r, mask.hidden).join(', ')}]::text[]`);
    const json = cases.length ? `case ${e}.resource ${cases.join(' ')} else ${e}.changes end` : undefined;
    built.set(key, json);
    return json;
  };
}

/** When an entry's, a delivery's or a version's write happened. */
export const WRITTEN_AT = 'When the write happened (UTC).';

/** The audit trail of the `resources`' writes. */
export const auditEntries = (resources: readonly Resource[]) =>
  defineEngineTable({
    module: 'audit',
    name: 'entry',
    path: '/api/audit',
    table: 'audit_entries',
    title: 'Audit entry',
    description: 'One recorded write (a create, an update or a delete of one record), or a security event about a user (resource `user`).',
    schemaName: 'AuditEntry',
    fields: {
      at: field.datetime({ nullable: false, lookups: ['gte', 'lte'], description: WRITTEN_AT }),
      user: { ...id('The user who wrote; null for writes outside a request (manage commands).'), nullable: true },
      action: field.enum({
        values: ENTRY_ACTIONS,
        nullable: false,
        lookups: ['exact'],
        description:
          'What the write did; or the security event: `sign_in`, `sign_in_failed` (changes: `address`), `sign_out`, `password_changed` (by the user), `password_reset` (by another), `token_created`, `token_revoked`, `groups_changed`, `superuser_changed`, `session_ended` (changes: `sessions`, how many). None carries a secret.',
      }),
      resource: field.string({ maxLength: 100, nullable: false, lookups: ['exact'], description: 'The resource key, e.g. `issue/issue` (`user` for `/api/user`).' }),
      record_id: { ...id("Id of the record written (the user, for a security event); null for a failed sign-in under a name that is no user's."), nullable: true },
      changes: field.json({
        schema: { type: 'object', additionalProperties: true },
        nullable: false,
        description:
          'update: `{"field": [old, new]}` per changed field, and `{"<name>_ids": [old ids, new ids]}` per changed many-to-many link set; create: the new values and link sets; delete: the last values. Foreign keys appear as `<name>_id`; passwords never.',
      }),
      request_id: field.string({ maxLength: 128, description: 'The `X-Request-Id` of the request that wrote.' }),
    },
    columns: { user: 'user_id' },
    ordering: ['-id'],
    page: { size: 100, max: 1000 },
    visible: (user, alias) => visibleEntries(resources, user, alias),
    servedAs: { changes: maskedChanges(resources.filter(hasFieldPermissions)) },
  });
