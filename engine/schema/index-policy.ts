/**
 * The indexes a resource's table gets (one place, so a change of policy is one change here and one
 * generated migration). Every index costs every insert, and every update of its columns, so a
 * table gets one only where a filter, an ordering, a key or a rule reads it:
 * - every foreign key, `created_by` included: joins, filters and the delete rule's lookups (a
 *   delete of the referenced row searches this table for it);
 * - `created` and `modified`, for the `created_after`/`modified_after`… bounds and the orderings by
 *   them that every list offers (`modified_after` is how a client fetches what changed since);
 * - a field that lists filter selectively (exact values, sets, bounds), except booleans: two
 *   values select half a table, which a scan reads as fast; and except unique fields, whose
 *   constraint has an index;
 * - a trigram index (GIN, pg_trgm) on every field with a substring lookup (`icontains`) or in
 *   `?search=`: both compile to `col ilike '%…%'`, which no b-tree serves;
 * - the default ordering, as one index over its fields, which every list without `?ordering=` sorts by;
 * - a `noOverlap` rule's scope and period, which every write of such a record searches.
 * A b-tree index whose columns begin another one's is left out: the longer one serves its lookups.
 */
import type { Lookup } from '../declare/fields.js';
import { lookupsOf } from '../crud/filters.js';
import { typeOf } from '../fields/index.js';
import { findField, findForeignKey, type Resource } from '../registry/resource.js';
import type { Index } from './model.js';

const SELECTIVE: readonly Lookup[] = ['exact', 'in', 'gte', 'lte', 'range'];

/** `a` is `b`'s leading columns (or all of them). */
const begins = (a: readonly string[], b: readonly string[]): boolean => a.length <= b.length && a.every((c, i) => b[i] === c);

/** B-tree column lists without repeats and without those another list begins with. */
function withoutPrefixes(lists: string[][]): string[][] {
  const unique = [...new Map(lists.map((cols) => [cols.join(','), cols])).values()];
  return unique.filter((cols) => !unique.some((other) => other !== cols && other.length > cols.length && begins(cols, other)));
}

export function indexesOf(resource: Resource): Index[] {
  const column = (name: string) => findField(resource, name)?.column ?? findForeignKey(resource, name)!.column;
  const btree: string[][] = [['created_by'], ['created'], ['modified'], ...resource.foreignKeys.map((fk) => [fk.column])];
  const trigram: Index[] = [];
  for (const f of resource.fields) {
    if (!f.column) continue;
    const lookups = lookupsOf(f);
    if (f.spec.search || lookups.includes('icontains')) trigram.push({ columns: [f.column], trigram: true });
    if (f.spec.unique || typeOf(f.spec).column(f.spec).type === 'boolean') continue;
    if (lookups.some((l) => SELECTIVE.includes(l))) btree.push([f.column]);
  }
  if (resource.ordering.length) btree.push(resource.ordering.map((o) => column(o.replace(/^-/, ''))));
  for (const rule of resource.rules) if (rule.kind === 'noOverlap') btree.push([column(rule.scope), column(rule.start), column(rule.end)]);
  return [...withoutPrefixes(btree).map((columns) => ({ columns })), ...trigram];
}
