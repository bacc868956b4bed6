/**
 * What a filter must do to the records of `filter-records.ts`: for each lookup, query values
 * taken from one record's served values, each with the record the list must include and the one
 * it must leave out. A filter these records cannot exercise answers why, and the sweep fails on it.
 */
import type { Filter } from '../../engine/crud/filters.js';
import { typeOf } from '../../engine/fields/index.js';
import { dateTimeType } from '../../engine/fields/temporal.js';
import { findField, type Resource } from '../../engine/registry/resource.js';
import type { FilterRecords } from './filter-records.js';

/** Which of the records. */
export type Which = keyof FilterRecords;

export interface FilterCase {
  value: string;
  match: Which;
  miss: Which;
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** The cases of `filter`, or why the records cannot exercise it. */
export function filterCases(resource: Resource, filter: Filter, { a, b, empty }: FilterRecords): FilterCase[] | string {
  const { key, lookup } = filter.on;
  const [x, y] = [a[key], b[key]];
  if (lookup === 'isnull') {
    if (!empty || empty[key] !== null) return `no record has an empty ${key}`;
    if (x === null) return `${key} is empty on a complete record`;
    return [
      { value: 'true', match: 'empty', miss: 'a' },
      { value: 'false', match: 'a', miss: 'empty' },
    ];
  }
  if (x === null || x === undefined || y === null || y === undefined) return `${key} is empty on a complete record`;
  if (same(x, y)) return `both records hold ${JSON.stringify(x)} in ${key}`;
  switch (lookup) {
    case 'exact':
    case 'in':
      return [{ value: String(x), match: 'a', miss: 'b' }];
    case 'icontains': {
      const part = partOnlyIn(String(x), String(y));
      return part === undefined ? `no part of ${JSON.stringify(x)} is missing from ${JSON.stringify(y)}` : [{ value: part.toUpperCase(), match: 'a', miss: 'b' }];
    }
    case 'member': {
      const id = (x as number[]).find((v) => !(y as number[]).includes(v));
      return id === undefined ? `a's ${key} links nothing b's does not` : [{ value: String(id), match: 'a', miss: 'b' }];
    }
    case 'gte':
    case 'lte':
    case 'range': {
      const field = findField(resource, key);
      const compare = field ? typeOf(field.spec).compare : dateTimeType.compare;
      if (compare(x) === compare(y)) return `both records hold ${key} equal to ${JSON.stringify(x)}`;
      const ascending = compare(x) < compare(y);
      const [low, high]: [Which, Which] = ascending ? ['a', 'b'] : ['b', 'a'];
      const [lowest, highest]: [string, string] = ascending ? [String(x), String(y)] : [String(y), String(x)];
      if (lookup === 'gte') return [{ value: highest, match: high, miss: low }];
      if (lookup === 'lte') return [{ value: lowest, match: low, miss: high }];
      return [
        { value: `${lowest},${lowest}`, match: low, miss: high },
        { value: `${highest},${highest}`, match: high, miss: low },
      ];
    }
  }
}

/** A proper part of `value` (at most six characters, from its end) that `other` does not contain, ignoring case. */
function partOnlyIn(value: string, other: string): string | undefined {
  const length = Math.min(6, value.length - 1);
  for (let end = value.length; end - length >= 0 && length > 0; end--) {
    const part = value.slice(end - length, end);
    if (!other.toLowerCase().includes(part.toLowerCase())) return part;
  }
  return undefined;
}
