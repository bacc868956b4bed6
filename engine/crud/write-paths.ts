/**
 * Which path a resource's writes take, decided once from its declaration. The one statement
 * (write-statement.ts) checks in SQL what the check path checks with several queries: references,
 * their visibility and shared parents, tree cycles, changeability, state moves, `protect`. What
 * cannot be SQL runs in the process, in the statement's transaction (service.ts): `order` rules,
 * the lock of a `noOverlap` rule's scope, escalation checks (privileges.ts), the access a record
 * carries (grants.ts), the sessions a new password ends, declared hooks (declare/hooks.ts), which
 * see the errors of a dry run of the statement before it writes.
 */
import type { Resource } from '../registry/resource.js';

/** How the statement's parts (CTEs) are named; a CTE hides a table of its name within the statement. */
export const STATEMENT_PARTS = 'w_';

/** Who writes in one statement: everyone, or nobody. */
export type WritePath = 'statement' | 'checks';

export function writePathOf(resource: Resource, all: readonly Resource[]): WritePath {
  // a table named like the statement's parts would be hidden from it
  const shadowed = all.some((r) => [r.table, ...r.manyToMany.map((m) => m.spec.table)].some((t) => t.startsWith(STATEMENT_PARTS)));
  return shadowed ? 'checks' : 'statement';
}
