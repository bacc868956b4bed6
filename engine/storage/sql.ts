/** Small SQL-building helpers shared by the query builders. Identifiers come from declarations only. */
export const q = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;
export const col = (alias: string, column: string): string => `${alias}.${q(column)}`;

/** A SQL fragment with its `?` bindings, composed without string-concatenating values. */
export interface Fragment {
  sql: string;
  bindings: unknown[];
}
export const frag = (sql: string, bindings: unknown[] = []): Fragment => ({ sql, bindings });
export const TRUE: Fragment = frag('true');
export const FALSE: Fragment = frag('false');

export function joinFragments(parts: Fragment[], op: 'and' | 'or'): Fragment {
  if (parts.length === 0) return op === 'and' ? TRUE : FALSE;
  if (parts.length === 1) return parts[0]!;
  return frag(`(${parts.map((p) => p.sql).join(` ${op} `)})`, parts.flatMap((p) => p.bindings));
}
