/**
 * A write statement's diagnostics (write-statement.ts), worded as the checks word them: the same
 * messages, fields in the same order (foreign keys, then links, each in declaration order), linked
 * ids in the order they were sent.
 */
import { FieldErrorCollector } from '../errors.js';
import type { Resource } from '../registry/resource.js';
import { missingReference } from './reference.js';
import { sharedParentKey, strayLink } from './shared-parent.js';
import { ownAncestor } from './tree.js';

type KeyDiagnostic = { missing: unknown } | { cycle: unknown };
type LinkDiagnostic = { id: number; seen: boolean }[];

/** Per write name: what the statement found wrong with a reference. */
export type ReferenceDiagnostics = Record<string, KeyDiagnostic | LinkDiagnostic>;

/** The fields of the record as it was that referenceErrors reads: the parent each `sameParent` link shares. */
export const referenceReads = (resource: Resource): string[] =>
  resource.manyToMany.flatMap((m) => sharedParentKey(resource, m)?.name ?? []);

/**
 * The field errors of `found` for a write of `values` over `existing` (the record as served; none
 * for a create): the parent a link must share is the one the record has after the write.
 */
export function referenceErrors(
  resource: Resource,
  values: Record<string, unknown>,
  found: ReferenceDiagnostics,
  /** The errors found before (the body's shape). */
  before: FieldErrorCollector,
  existing?: Record<string, unknown>,
): FieldErrorCollector {
  const errors = new FieldErrorCollector();
  for (const fk of resource.foreignKeys) {
    const d = found[fk.writeName] as KeyDiagnostic | undefined;
    if (d && 'missing' in d) errors.add(fk.writeName, missingReference({ id: values[fk.writeName] }));
    else if (d) errors.add(fk.writeName, ownAncestor(resource, fk, { parent: d.cycle }));
  }
  for (const m of resource.manyToMany) {
    const d = found[m.writeName] as LinkDiagnostic | undefined;
    if (!d) continue;
    const byId = new Map(d.map((link) => [link.id, link]));
    const local = sharedParentKey(resource, m);
    const parent = local && (local.writeName in values ? values[local.writeName] : existing?.[local.name]);
    // links sent, in the order sent; else those already linked that a new parent strands
    const ids = m.writeName in values ? new Set(values[m.writeName] as number[]) : d.map((link) => link.id);
    for (const id of ids) {
      const link = byId.get(id);
      if (!link) continue;
      if (!link.seen) errors.add(m.writeName, missingReference({ id }));
      // a parent that is itself refused is no parent to compare with
      else if (local && !errors.has(local.writeName) && !before.has(local.writeName)) errors.add(m.writeName, strayLink(m, { target: id, parent }));
    }
  }
  return errors;
}
