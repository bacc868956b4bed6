/**
 * The indexes a resource's table gets beyond its record columns' (one place, so a change of
 * policy is one change here and one generated migration):
 * - every foreign key, for joins, filters and the delete rule's lookups;
 * - a field that lists filter selectively (exact values, sets, bounds), except booleans: two
 *   values select half a table, which a scan reads as fast; and except unique fields, whose
 *   constraint has an index. Substring lookups (`icontains`) get none: a b-tree cannot serve
 *   `ilike '%…%'`;
 * - the default ordering, as one index over its fields, which every list without `?ordering=` sorts by;
 * - a `noOverlap` rule's scope and period, which every write of such a record searches.
 */
import type { Lookup } from '../declare/fields.js';
import { lookupsOf } from '../crud/filters.js';
import { typeOf } from '../fields/index.js';
import { findField, findForeignKey, type Resource } from '../registry/resource.js';

const SELECTIVE: readonly Lookup[] = ['exact', 'in', 'gte', 'lte', 'range'];

export function indexesOf(resource: Resource): string[][] {
  const column = (name: string) => findField(resource, name)?.column ?? findForeignKey(resource, name)!.column;
  const indexes: string[][] = resource.foreignKeys.map((fk) => [fk.column]);
  for (const f of resource.fields) {
    if (!f.column || f.spec.unique || typeOf(f.spec).column(f.spec).type === 'boolean') continue;
    if (lookupsOf(f).some((l) => SELECTIVE.includes(l))) indexes.push([f.column]);
  }
  if (resource.ordering.length) indexes.push(resource.ordering.map((o) => column(o.replace(/^-/, ''))));
  for (const rule of resource.rules) if (rule.kind === 'noOverlap') indexes.push([column(rule.scope), column(rule.start), column(rule.end)]);
  // one index per column list
  return [...new Map(indexes.map((cols) => [cols.join(','), cols])).values()];
}
