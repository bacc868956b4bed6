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
 * - an update that sets a password (it ends the user's other sessions).
 */
import { carriesAccess } from '../access/grants.js';
import { guardsRights } from '../access/privileges.js';
import type { Resource } from '../registry/resource.js';

/** How the statement's parts (CTEs) are named; a CTE hides a table of its name within the statement. */
export const STATEMENT_PARTS = 'w_';

export interface WritePath {
  /** Who writes in one statement: everyone, superusers, or nobody. */
  takes: 'statement' | 'statement for superusers' | 'checks';
  /** Why writes leave the statement, or take more than it, in words, for the README. */
  notes: string[];
}

export function writePathOf(resource: Resource, all: readonly Resource[]): WritePath {
  const off = resource.rules.filter((r) => r.kind !== 'order').map((r) => `${r.kind} rule`);
  if (resource.declaration.hooks) off.push('hooks');
  // the statement's parts would hide such a table from it
  const shadowed = all.flatMap((r) => [r.table, ...r.manyToMany.map((m) => m.spec.table)]).filter((t) => t.startsWith(STATEMENT_PARTS));
  if (shadowed.length) off.push(`tables named ${STATEMENT_PARTS}…: ${shadowed.join(', ')}`);
  const superusersOnly = [...(guardsRights(resource) ? ['escalation checks'] : []), ...(carriesAccess(all, resource) ? ['carries access'] : [])];
  const updates = [
    ...(resource.rules.some((r) => r.kind === 'order') ? ['order rule: updates in BEGIN … COMMIT'] : []),
    ...(resource.fields.some((f) => f.spec.type === 'password') ? ['updates setting a password: checks'] : []),
  ];
  return {
    takes: off.length ? 'checks' : superusersOnly.length ? 'statement for superusers' : 'statement',
    notes: off.length ? off : [...superusersOnly, ...updates],
  };
}

/** Whether `user`'s write takes the statement on `path`. */
export const takesStatement = ({ takes }: WritePath, isSuperuser: boolean): boolean =>
  takes === 'statement' || (takes === 'statement for superusers' && isSuperuser);
