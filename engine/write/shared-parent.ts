/**
 * Rule (`sameParent` on a link): a linked record belongs to the parent the record has after the
 * write. Diagnostic: the linked record's id and the parent it should belong to.
 */
import { findForeignKey, type ForeignKeyRef, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

export interface StrayLink {
  target: unknown;
  parent: unknown;
}

/** The record's foreign key to the parent its link `m` shares; none when the link declares no `sameParent`. */
export const sharedParentKey = (resource: Resource, m: ManyToManyRef): ForeignKeyRef | undefined =>
  m.spec.sameParent && findForeignKey(resource, m.spec.sameParent.local)!;

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export const strayLink = (m: ManyToManyRef, { target, parent }: StrayLink): string =>
  `${capitalise(m.target.name)} ${String(target)} does not belong to ${m.spec.sameParent!.local} ${String(parent)}.`;

/** SQL: the linked record `ref` (an alias of `m`'s target, its id null when not found) is under another parent than `parent` (SQL; null: no parent to share). */
export const straysSql = (m: ManyToManyRef, ref: string, parent: string): string =>
  `(${ref}.id is not null and ${parent} is not null and ${ref}.${q(findForeignKey(m.target, m.spec.sameParent!.remote)!.column)} is distinct from ${parent})`;
