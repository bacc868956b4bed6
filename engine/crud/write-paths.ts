/**
 * Which path a resource's creates and updates take, decided once from its declaration. The one
 * statement (write-statement.ts) checks in SQL what the check path checks with several queries:
 * references, their visibility and shared parents, tree cycles, changeability, state moves.
 * `order` rules are compared in the process: before a create, and for an update between the
 * statement and its COMMIT (they need the stored values). What the statement cannot check keeps a
 * resource, or a non-superuser's writes of it, on the check path:
 * - hooks (declare/hooks.ts), which the check path runs, and rules that read the database (`noOverlap`);
 * - escalation checks (privileges.ts) and the check of access a record carries (grants.ts), both
 *   skipped for superusers, whose writes may take the statement;
 * - an update that sets a password (it ends the user's other sessions; write-statement.ts).
 */
import { carriesAccess } from '../access/grants.js';
import { guardsRights } from '../access/privileges.js';
import type { Resource } from '../registry/resource.js';

/** How the statement's parts (CTEs) are named; a CTE hides a table of its name within the statement. */
export const STATEMENT_PARTS = 'w_';

/** Who writes in one statement: everyone, superusers, or nobody. */
export type WritePath = 'statement' | 'statement for superusers' | 'checks';

export function writePathOf(resource: Resource, all: readonly Resource[]): WritePath {
  // a table named like the statement's parts would be hidden from it
  const shadowed = all.some((r) => [r.table, ...r.manyToMany.map((m) => m.spec.table)].some((t) => t.startsWith(STATEMENT_PARTS)));
  if (resource.declaration.hooks || resource.rules.some((r) => r.kind !== 'order') || shadowed) return 'checks';
  return guardsRights(resource) || carriesAccess(all, resource) ? 'statement for superusers' : 'statement';
}

/** Whether `user`'s write takes the statement on `path`. */
export const takesStatement = (path: WritePath, isSuperuser: boolean): boolean =>
  path === 'statement' || (path === 'statement for superusers' && isSuperuser);
