/**
 * Plans a list request: filters, search, ordering and paging parsed from the query string into
 * SQL pieces, with every bad parameter reported at once. No database access here.
 */
import { emptyMap, ValidationError, type FieldErrors } from '../errors.js';
import type { Resource } from '../registry/resource.js';
import { col, containsPattern, frag, joinFragments, type Fragment } from '../storage/sql.js';
import { ROW } from '../storage/serialise.js';
import { filterConditions, type Filter } from './filters.js';
import { NUL_MESSAGE } from './validator.js';

export interface ListPlan {
  where: Fragment[];
  orderBy: string;
  limit: number | undefined;
  offset: number | undefined;
}

/** Fields a list may be ordered by: id, created, modified, orderable fields and foreign keys. */
export function orderableColumns(resource: Resource): Map<string, string> {
  const m = new Map<string, string>([
    ['id', `${ROW}.id`],
    ['created', `${ROW}.created`],
    ['modified', `${ROW}.modified`],
  ]);
  for (const f of resource.fields) if (f.orderable && f.column) m.set(f.name, col(ROW, f.column));
  for (const fk of resource.foreignKeys) m.set(fk.name, col(ROW, fk.column));
  return m;
}

export function searchColumns(resource: Resource): string[] {
  return resource.fields.filter((f) => f.spec.search && f.column).map((f) => col(ROW, f.column!));
}

/** Every word in one of the columns: an `or` per word that trigram indexes serve (a null column matches nothing). */
function searchCondition(columns: string[], text: string): Fragment[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => joinFragments(columns.map((c) => frag(`${c} ilike ?`, [containsPattern(word)])), 'or'));
}

function parseOrdering(spec: string, columns: Map<string, string>, errors: FieldErrors): string[] {
  const terms: string[] = [];
  for (const raw of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const name = raw.replace(/^-/, '');
    const expr = columns.get(name);
    if (!expr) (errors.ordering ??= []).push(`Cannot order by "${name}".`);
    else terms.push(`${expr} ${raw.startsWith('-') ? 'desc' : 'asc'}`);
  }
  return terms;
}

function parseCount(name: string, raw: string | undefined, errors: FieldErrors): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) {
    errors[name] = ['Enter a number.'];
    return undefined;
  }
  return Number(raw);
}

/** The query without parameters the plan reads that hold U+0000, each reported under its name. */
function withoutNul(query: Record<string, string>, filters: readonly Filter[], errors: FieldErrors): Record<string, string> {
  const out = emptyMap<string>();
  const read = new Set([...filters.map((f) => f.param), 'search', 'ordering', 'limit', 'offset']);
  for (const [name, value] of Object.entries(query)) {
    if (read.has(name) && value.includes('\0')) errors[name] = [NUL_MESSAGE];
    else out[name] = value;
  }
  return out;
}

export function planList(
  resource: Resource,
  filters: readonly Filter[],
  orderable: Map<string, string>,
  search: string[],
  query: Record<string, string>,
): ListPlan {
  const errors: FieldErrors = emptyMap();
  query = withoutNul(query, filters, errors);
  const where = filterConditions(filters, query, errors);
  if (query.search !== undefined && search.length > 0) where.push(...searchCondition(search, query.search));
  const ordering = parseOrdering(query.ordering ?? resource.ordering.join(','), orderable, errors);
  const limit = parseCount('limit', query.limit, errors);
  const offset = parseCount('offset', query.offset, errors);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { where, orderBy: [...ordering, `${ROW}.id asc`].join(', '), limit, offset };
}
