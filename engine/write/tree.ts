/**
 * Rule (`tree` on a foreign key): a record never becomes its own ancestor. Diagnostic: the parent
 * the write would set.
 */
import type { ForeignKeyRef, Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

export interface Cycle {
  parent: unknown;
}

export const ownAncestor = (resource: Resource, fk: ForeignKeyRef, { parent }: Cycle): string =>
  `Cannot set ${fk.name} to ${String(parent)}: the ${resource.name} would become its own ancestor.`;

/** SQL: whether record `id` is `parent` or one of its ancestors up the tree key `fk`, so `parent` cannot become its parent (both SQL expressions). */
export function closesCycle(resource: Resource, fk: ForeignKeyRef, parent: string, id: string): string {
  const [table, column] = [q(resource.table), q(fk.column)];
  return `exists (with recursive up(id, parent) as (select id, ${column} from ${table} where id = ${parent} union select p.id, p.${column} from ${table} p join up on p.id = up.parent) select 1 from up where id = ${id})`;
}
