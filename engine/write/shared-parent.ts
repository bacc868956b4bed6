/**
 * Rule (`sameParent` on a link): a linked record belongs to the parent the record has after the
 * write. Diagnostic: the linked record's id and the parent it should belong to.
 */
import type { ManyToManyRef } from '../registry/resource.js';

export interface StrayLink {
  target: unknown;
  parent: unknown;
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export const strayLink = (m: ManyToManyRef, { target, parent }: StrayLink): string =>
  `${capitalise(m.target.name)} ${String(target)} does not belong to ${m.spec.sameParent!.local} ${String(parent)}.`;
