/**
 * The opaque `cursor` of keyset paging: base64url of `{"o": ordering, "k": key, "c": comparison}`,
 * the ordering it was made for, the key of the row it lies next to and on which side of that row
 * the page is. Read back, it must name the request's ordering and hold a valid value per term;
 * anything else is refused under `cursor` before a query runs.
 */
import { COMPARISONS, type Comparison, type Key, type OrderTerm } from './keyset.js';

export interface Cursor {
  comparison: Comparison;
  key: Key;
}

/** A cursor read back: its key's values parsed for binding. */
export interface BoundCursor extends Cursor {
  values: unknown[];
}

export const INVALID_CURSOR = 'Invalid cursor: pass on the cursor of a Link header unchanged.';

/** The ordering a cursor binds to, as `ordering=` spells it: `-created,title,id`. */
export const orderingName = (terms: readonly OrderTerm[]): string => terms.map((t) => `${t.descending ? '-' : ''}${t.name}`).join(',');

export function encodeCursor(terms: readonly OrderTerm[], cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ o: orderingName(terms), k: cursor.key, c: cursor.comparison })).toString('base64url');
}

function readJson(raw: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return undefined;
  try {
    return JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const isKey = (k: unknown): k is Key => Array.isArray(k) && k.every((v) => v === null || (typeof v === 'string' && !v.includes('\0')));

/** The cursor `raw` for a list ordered by `terms`, or the message to answer under `cursor`. */
export function decodeCursor(raw: string, terms: readonly OrderTerm[]): BoundCursor | string {
  const c = readJson(raw) as { o?: unknown; k?: unknown; c?: unknown } | undefined;
  if (typeof c !== 'object' || c === null || typeof c.o !== 'string' || !isKey(c.k) || !COMPARISONS.includes(c.c as Comparison)) return INVALID_CURSOR;
  const ordering = orderingName(terms);
  if (c.o !== ordering) return `This cursor belongs to the ordering "${c.o}", not "${ordering}": send it with that ordering, or start again without a cursor.`;
  if (c.k.length !== terms.length) return INVALID_CURSOR;
  const values: unknown[] = [];
  for (const [i, text] of c.k.entries()) {
    const { column } = terms[i]!;
    if (text === null) {
      if (!column.nullable) return INVALID_CURSOR;
      values.push(null);
      continue;
    }
    const parsed = column.parse(text);
    if (!parsed.ok) return INVALID_CURSOR;
    values.push(parsed.value);
  }
  return { comparison: c.c as Comparison, key: c.k, values };
}
