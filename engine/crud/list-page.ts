/**
 * One list answer as SQL, and the links around it. A page holds `limit` records (MAX_LIST_ROWS
 * when that is lower or no limit was given), counted from an offset or from a cursor's key. The
 * first row also carries the page's edge, computed once in the same statement, so from the same
 * snapshot: the keys of the page's last row and of the row beyond it; and the count, when asked
 * for, from that snapshot too. The first row thus tells, before a byte is sent, whether more rows
 * follow, where the next page starts and how many records match.
 */
import type { Resource } from '../registry/resource.js';
import { headProbe, listRecords, PROBE_ROWS, ROW } from '../storage/serialise.js';
import { frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import { beyondKey, complement, isBackward, keyOf, orderBy, reversed, type Comparison, type Key } from './keyset.js';
import { encodeCursor } from './list-cursor.js';
import type { ListPlan } from './list-plan.js';

/** The page a link points to: the request with another offset (0: none), or with a cursor instead. */
export type Position = { offset: number } | { cursor: string };

export interface PageLinks {
  next?: Position;
  prev?: Position;
  /** MAX_LIST_ROWS held back records the request would otherwise have had. */
  truncated: boolean;
}

/** What a list's first row carries beside its records. */
export interface ListHead {
  /** The keys of the page's last record and of the one after it (`[]` when the page has no size or no records). */
  edge: Key[];
  /** `count=true`: the number of records matching the filters and visible to the caller. */
  total: string | undefined;
}

export interface ListQuery {
  /**
   * Rows `{json, edge?, total?}` (see listRecords): `edge` when the page has a size, a JSON array
   * of at most two keys; `total` when counted, from the same snapshot as the records. Made when
   * first asked for; a probed list runs it when it goes on past its probe, and while its shape
   * outgrows its probe (probedPieces).
   */
  records(): Fragment;
  /**
   * For a list that may hold more than PROBE_ROWS records: its first ones alone with the head's
   * columns (headProbe), read first; `records` only when the list goes on (text-pieces.ts probedPieces).
   */
  probe?: Fragment;
  /** The head from the first row's columns after `json`. */
  head(columns: readonly (string | null)[]): ListHead;
  /** The links around the page, from the edge its first row carried. */
  links(edge: Key[]): PageLinks;
}

/** `list`: the select list of a `fields`/`expand` request (the resource's own by default). */
export function listQuery(resource: Resource, visible: readonly Fragment[], plan: ListPlan, maxRows: number | undefined, list?: Fragment): ListQuery {
  const { ordering: terms, cursor } = plan;
  const size = plan.limit === undefined || (maxRows !== undefined && maxRows < plan.limit) ? maxRows : plan.limit;
  const capped = size !== undefined && size !== plan.limit;
  const skip = plan.offset ?? 0;
  const table = `${q(resource.table)} ${ROW}`;
  const where = [...visible, ...plan.where];
  const matching = joinFragments(cursor ? [...where, beyondKey(terms, cursor.values, cursor.comparison)] : where, 'and');
  // a page before a key is the rows nearest to it, found in reverse order and served in list order
  const backward = cursor !== undefined && isBackward(cursor.comparison);
  const nearest = orderBy(backward ? reversed(terms) : terms);
  const order = orderBy(terms);

  const edge = size ? frag(`array_to_json(array(select ${keyOf(terms)} from ${table} where ${matching.sql} order by ${nearest} limit 2 offset ?))::text as edge`, [...matching.bindings, skip + size - 1]) : undefined;
  const all = joinFragments(where, 'and');
  const total = plan.count ? frag(`(select count(*) from ${table} where ${all.sql})::text as total`, all.bindings) : undefined;
  const also = [edge, total].filter((f) => f !== undefined);
  let records: Fragment | undefined;
  const recordsOf = (): Fragment =>
    backward && size !== undefined
      ? listRecords(resource, frag(`${ROW}.id in (select ${ROW}.id from ${table} where ${matching.sql} order by ${nearest} limit ?)`, [...matching.bindings, size]), order, undefined, 0, also, list)
      : listRecords(resource, matching, order, size, skip, also, list);

  const probed = !backward && (size === undefined || size > PROBE_ROWS);
  return {
    records: () => (records ??= recordsOf()),
    probe: probed ? headProbe(resource, matching, order, skip, also, list) : undefined,
    head(columns) {
      const value = (column: Fragment | undefined) => (column ? (columns[also.indexOf(column)] ?? null) : null);
      const keys = value(edge);
      return { edge: keys ? (JSON.parse(keys) as Key[]) : [], total: value(total) ?? undefined };
    },
    links(keys) {
      if (!size) return { truncated: false };
      const more = keys.length === 2;
      const at = (comparison: Comparison, key: Key): Position => ({ cursor: encodeCursor(terms, { comparison, key }) });
      // next pages continue from a cursor (stable under inserts, and as quick at any depth), unless
      // the resource pages by offset (an engine table's declared page) and the request did
      const byOffset = resource.engineTable?.page !== undefined && !cursor;
      const onward = !more ? undefined : byOffset ? { offset: skip + size } : at(backward ? '<' : '>', keys[0]!);
      const truncated = capped && more;
      if (!cursor) return { next: onward, prev: skip > 0 ? { offset: Math.max(0, skip - size) } : undefined, truncated };
      const back = at(complement(cursor.comparison), cursor.key);
      return backward ? { next: back, prev: onward, truncated } : { next: onward, prev: back, truncated };
    },
  };
}
