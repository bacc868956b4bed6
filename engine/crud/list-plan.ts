/**
 * Plans a list request: filters, search, ordering and paging parsed from the query string into
 * SQL pieces, with every bad parameter reported at once. No database access here.
 */
import { emptyMap, ValidationError, type FieldErrors } from '../errors.js';
import type { FieldMask } from '../access/field-permissions.js';
import type { Resource } from '../registry/resource.js';
import { col, contains, joinFragments, type Fragment } from '../storage/sql.js';
import { ROW } from '../storage/serialise.js';
import { filterConditions, type Filter } from './filters.js';
import { orderColumn, type OrderColumn, type OrderTerm } from './keyset.js';
import { PAGING_PARAMETERS, parsePaging, type Paging } from './list-paging.js';
import type { RecordShapes, Shape } from './record-shapes.js';
import { NUL_MESSAGE } from './validator.js';

export interface ListPlan extends Paging {
  where: Fragment[];
  /** `fields=` and `expand=`; undefined for whole records. */
  shape: Shape | undefined;
  /** The requested ordering, then id (which breaks ties); each column once, nothing after id. */
  ordering: OrderTerm[];
}

const ID = { type: 'integer', description: 'Id.' } as const;
const MOMENT = { type: 'datetime', description: 'Time.' } as const;

/** Fields a list may be ordered by: id, created, modified, orderable fields and foreign keys. */
export function orderableColumns(resource: Resource): Map<string, OrderColumn> {
  const m = new Map<string, OrderColumn>([['id', orderColumn(`${ROW}.id`, ID, false)]]);
  for (const moment of ['created', 'modified'] as const) if (resource.recordColumns.includes(moment)) m.set(moment, orderColumn(`${ROW}.${moment}`, MOMENT, false));
  for (const f of resource.fields) if (f.orderable && f.column) m.set(f.name, orderColumn(col(ROW, f.column), f.spec, f.nullable));
  for (const fk of resource.foreignKeys) m.set(fk.name, orderColumn(col(ROW, fk.column), ID, !fk.required));
  return m;
}

/** Each word costs a scan of every search column, so a search is bounded: a long one could hold a connection for minutes. */
export const SEARCH_LIMITS = { words: 10, wordLength: 100 } as const;

/** Every word in one of the columns: an `or` per word that trigram indexes serve (a null column matches nothing). */
function searchCondition(columns: string[], text: string, errors: FieldErrors): Fragment[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length > SEARCH_LIMITS.words) (errors.search ??= []).push(`Ensure this value has at most ${SEARCH_LIMITS.words} words.`);
  if (words.some((w) => [...w].length > SEARCH_LIMITS.wordLength)) {
    (errors.search ??= []).push(`Ensure each word has no more than ${SEARCH_LIMITS.wordLength} characters.`);
  }
  return words.map((word) => joinFragments(columns.map((c) => contains(c, word)), 'or'));
}

/** The terms of `spec`, then id; undefined when a name is not orderable (or hidden from the caller). */
function parseOrdering(spec: string, columns: Map<string, OrderColumn>, hidden: ReadonlySet<string>, errors: FieldErrors): OrderTerm[] | undefined {
  const terms: OrderTerm[] = [];
  for (const raw of [...spec.split(','), 'id'].map((s) => s.trim()).filter(Boolean)) {
    const name = raw.replace(/^-/, '');
    const column = hidden.has(name) ? undefined : columns.get(name);
    if (!column) (errors.ordering ??= []).push(`Cannot order by "${name}".`);
    // a column named again, or any after the unique id, cannot change the order
    else if (!errors.ordering && !terms.some((t) => t.name === name || t.name === 'id')) terms.push({ name, column, descending: raw.startsWith('-') });
  }
  return errors.ordering ? undefined : terms;
}

/** The query without parameters the plan reads that hold U+0000, each reported under its name. */
function withoutNul(query: Record<string, string>, filters: readonly Filter[], errors: FieldErrors): Record<string, string> {
  // the query as it is, unless a value holds U+0000: a copy per list for what few queries hold
  let nul = false;
  for (const name in query) if ((nul = query[name]!.includes('\0'))) break;
  if (!nul) return query;
  const out = emptyMap<string>();
  // the names are gathered only for a query that holds U+0000, which few do
  let read: Set<string> | undefined;
  for (const [name, value] of Object.entries(query)) {
    if (value.includes('\0') && (read ??= new Set([...filters.map((f) => f.param), 'search', 'ordering', 'fields', 'expand', ...PAGING_PARAMETERS])).has(name))
      errors[name] = [NUL_MESSAGE];
    else out[name] = value;
  }
  return out;
}

/** The paging of a resource that declares a page (an engine table): its size by default, `limit` from 1 to its most. */
function pageOf(resource: Resource, paging: Paging, errors: FieldErrors): Paging {
  const page = resource.engineTable?.page;
  if (!page || errors.limit) return paging;
  const { limit = page.size } = paging;
  if (limit < 1 || limit > page.max) errors.limit = [`Ensure this value is between 1 and ${page.max}.`];
  return { ...paging, limit };
}

/** The filters `mask` leaves the caller; a parameter of another answers 400 under its name, as a value would tell about the field. */
function permittedFilters(filters: readonly Filter[], mask: FieldMask, query: Record<string, string>, errors: FieldErrors): readonly Filter[] {
  if (mask.hidden.size === 0) return filters;
  for (const f of filters) if (mask.hidden.has(f.on.key) && query[f.param] !== undefined) errors[f.param] = [`You do not have permission to filter by "${f.on.key}".`];
  return filters.filter((f) => !mask.hidden.has(f.on.key));
}

/** `mask`: what the caller's field permissions withhold (access/field-permissions.ts). */
export function planList(
  resource: Resource,
  filters: readonly Filter[],
  orderable: Map<string, OrderColumn>,
  mask: FieldMask,
  query: Record<string, string>,
  shapes: RecordShapes,
): ListPlan {
  const errors: FieldErrors = emptyMap();
  query = withoutNul(query, filters, errors);
  const where = filterConditions(permittedFilters(filters, mask, query, errors), query, errors);
  if (query.search !== undefined && mask.search.length > 0) where.push(...searchCondition(mask.search, query.search, errors));
  const ordering = parseOrdering(query.ordering ?? resource.ordering.filter((o) => !mask.hidden.has(o.replace(/^-/, ''))).join(','), orderable, mask.hidden, errors);
  const paging = pageOf(resource, parsePaging(query, ordering, errors), errors);
  const shape = shapes.parse(query, errors, mask);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { where, ordering: ordering!, shape, ...paging };
}
