/**
 * Rule (`tree` on a foreign key): a record never becomes its own ancestor. Diagnostic: the parent
 * the write would set.
 */
import type { ForeignKeyRef, Resource } from '../registry/resource.js';

export interface Cycle {
  parent: unknown;
}

export const ownAncestor = (resource: Resource, fk: ForeignKeyRef, { parent }: Cycle): string =>
  `Cannot set ${fk.name} to ${String(parent)}: the ${resource.name} would become its own ancestor.`;
