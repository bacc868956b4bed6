/**
 * Rule `noOverlap`: records of one scope have no overlapping [start, end) periods. Diagnostic: the
 * record the period overlaps. Reported under `start`.
 */
import type { RecordRule } from '../declare/index.js';
import { findField, findForeignKey, type Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

export interface Overlap {
  other: unknown;
}

export const overlaps = (resource: Resource, rule: Extract<RecordRule, { kind: 'noOverlap' }>, { other }: Overlap): string =>
  `This period overlaps ${resource.name} ${String(other)} of the same ${rule.scope}.`;

/**
 * The diagnostic as SQL: `{other}` naming the first record of the same scope whose period overlaps
 * the one after the write, null when none. `next(name)` is a field's or key's value after the write;
 * `self` the record's own id (null for a create). Exact only while the scope record is locked (the
 * writer locks it before the statement, so concurrent writers of one scope take turns).
 */
export function overlapSql(resource: Resource, rule: Extract<RecordRule, { kind: 'noOverlap' }>, next: (name: string) => string, self: string): string {
  const fk = findForeignKey(resource, rule.scope)!;
  const [start, end] = [findField(resource, rule.start)!, findField(resource, rule.end)!].map((f) => q(f.column!));
  return (
    `(select json_build_object('other', o.id) from ${q(resource.table)} o where o.${q(fk.column)} = ${next(fk.writeName)} ` +
    `and o.id is distinct from ${self} and o.${start} < ${next(rule.end)} and o.${end} > ${next(rule.start)} order by o.id limit 1)`
  );
}
