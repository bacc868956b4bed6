/** Small SQL-building helpers shared by the query builders. Identifiers come from declarations only. */
export const q = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;
export const col = (alias: string, column: string): string => `${alias}.${q(column)}`;

/** A SQL fragment with its `?` bindings, composed without string-concatenating values. */
export interface Fragment {
  sql: string;
  bindings: unknown[];
}
export const frag = (sql: string, bindings: unknown[] = []): Fragment => ({ sql, bindings });
/**
 * An ILIKE pattern matching `text` anywhere, its own `\`, `%` and `_` escaped (`\` is ILIKE's
 * default escape): unlike `strpos(lower(col), …)`, `col ilike ?` is served by a trigram index.
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** How a substring match reads in SQL: statements.ts plans the texts holding it with their values. */
export const PATTERN_MATCH = ' ilike ?';

/** `expr` contains `text` (any case). */
export const contains = (expr: string, text: string): Fragment => frag(`${expr}${PATTERN_MATCH}`, [containsPattern(text)]);

export const TRUE: Fragment = frag('true');
export const FALSE: Fragment = frag('false');

/** Joins with `and`/`or`, folding the constant FALSE (a part known false at build time). */
export function joinFragments(all: Fragment[], op: 'and' | 'or'): Fragment {
  if (op === 'and' && all.includes(FALSE)) return FALSE;
  const parts = all.filter((p) => p !== FALSE);
  if (parts.length === 0) return op === 'and' ? TRUE : FALSE;
  if (parts.length === 1) return parts[0]!;
  return frag(`(${parts.map((p) => p.sql).join(` ${op} `)})`, parts.flatMap((p) => p.bindings));
}
