/**
 * The paging parameters of a list: `limit`, `offset`, `cursor` (keyset paging, see list-cursor.ts)
 * and `count`, each bad value reported under its name.
 */
import { FIELD_MESSAGES } from '../errors.js';
import type { FieldErrors } from '../errors.js';
import { parseChoice } from '../fields/values.js';
import { decodeCursor, type BoundCursor } from './list-cursor.js';
import type { OrderTerm } from './keyset.js';

export interface Paging {
  limit: number | undefined;
  offset: number | undefined;
  /** Where a keyset page starts. */
  cursor: BoundCursor | undefined;
  /** `count=true`: the answer carries the number of matching records. */
  count: boolean;
}

export const PAGING_PARAMETERS = ['limit', 'offset', 'cursor', 'count'] as const;

function parseCount(name: string, raw: string | undefined, errors: FieldErrors): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) {
    errors[name] = [FIELD_MESSAGES.notANumber];
    return undefined;
  }
  return Number(raw);
}

function parseCursor(raw: string | undefined, withOffset: boolean, terms: readonly OrderTerm[], errors: FieldErrors): BoundCursor | undefined {
  if (raw === undefined) return undefined;
  if (withOffset) {
    errors.cursor = ['A cursor cannot be combined with offset: the cursor says where the page starts.'];
    return undefined;
  }
  const cursor = decodeCursor(raw, terms);
  if (typeof cursor !== 'string') return cursor;
  errors.cursor = [cursor];
  return undefined;
}

/** `terms`: the list's ordering, which a cursor must have been made for (unknown when the ordering is invalid). */
export function parsePaging(query: Record<string, string>, terms: readonly OrderTerm[] | undefined, errors: FieldErrors): Paging {
  const limit = parseCount('limit', query.limit, errors);
  const offset = parseCount('offset', query.offset, errors);
  const cursor = terms ? parseCursor(query.cursor, query.offset !== undefined, terms, errors) : undefined;
  let count = false;
  if (query.count !== undefined) {
    const parsed = parseChoice(query.count, ['true', 'false']);
    if (parsed.ok) count = query.count === 'true';
    else errors.count = [parsed.message];
  }
  return { limit, offset, cursor, count };
}
