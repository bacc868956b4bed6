/**
 * Rule (`onDelete: 'protect'`): a record that protecting foreign keys still point at is not
 * deleted (409). Diagnostic: the first such record (by id), how many records hold it and which of
 * the protecting keys (`guard`, its index among them); without one (a database refusal) the
 * records deleted are named as a whole.
 */
import type { Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

export interface StillReferenced {
  id: number;
  count: number;
  guard: number;
}

const guardsOf = (resource: Resource) => resource.referencedBy.filter((r) => r.fk.spec.onDelete === 'protect');

/** SQL: the diagnostic of deleting the records whose ids the SQL `int[]` expression `ids` holds; null when none is held (or nothing protects the resource). */
export function stillReferencedSql(resource: Resource, ids: string): string | null {
  const guards = guardsOf(resource);
  if (!guards.length) return null;
  const counts = guards.map((g, i) => `select ${i} as guard, ${q(g.fk.column)} as id, count(*)::int as n from ${q(g.resource.table)} where ${q(g.fk.column)} = any(${ids}) group by 2`);
  return `(select json_build_object('id', p.id, 'count', p.n, 'guard', p.guard) from (${counts.join(' union all ')}) p order by p.id, p.guard limit 1)`;
}

export const stillReferenced = (resource: Resource, { id, count, guard }: StillReferenced): string =>
  `Cannot delete ${resource.name} ${id}: referenced by ${count} ${guardsOf(resource)[guard]!.resource.name} records.`;

export const referencedByOthers = (deleting: string): string => `Cannot delete ${deleting}: referenced by other records.`;
