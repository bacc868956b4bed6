/**
 * Keyset paging over a list's ordering: its ORDER BY, the key of a row (its ordering values as
 * served texts, id last) and the condition selecting the rows on one side of a key in exactly that
 * order, PostgreSQL's null placement included (ascending puts nulls last, descending first).
 */
import { typeOf, type FieldType, type Parsed } from '../fields/index.js';
import type { FieldSpec } from '../declare/fields.js';
import { FALSE, frag, joinFragments, type Fragment } from '../storage/sql.js';

/** A column a list may be ordered by, and how a cursor stores and compares its value. */
export interface OrderColumn {
  /** What the list is ordered by: a column of the row. */
  expr: string;
  nullable: boolean;
  /** The value as the text a cursor stores: its served form, which is exact for every orderable type. */
  text: string;
  /** A stored text back to a value to bind, or why it is not one. */
  parse(raw: string): Parsed;
  /** SQL cast of a bound value, where PostgreSQL cannot infer it. */
  cast: string;
}

export interface OrderTerm {
  name: string;
  column: OrderColumn;
  descending: boolean;
}

/** The rows after a key (`>`), from it on (`>=`), before it (`<`) or up to it (`<=`), in list order. */
export type Comparison = '>' | '>=' | '<' | '<=';
export const COMPARISONS: readonly Comparison[] = ['>', '>=', '<', '<='];

/** A key as a cursor holds it: one text (or null) per ordering term. */
export type Key = (string | null)[];

/** The column `expr` of a value typed like `spec`. */
export function orderColumn(expr: string, spec: FieldSpec, nullable: boolean): OrderColumn {
  const type = typeOf(spec) as FieldType;
  return { expr, nullable, text: type.read(spec, expr) ?? expr, parse: (raw) => type.filterValue(spec, raw), cast: type.cast ?? '' };
}

export const orderBy = (terms: readonly OrderTerm[]): string => terms.map((t) => `${t.column.expr} ${t.descending ? 'desc' : 'asc'}`).join(', ');

/** The same columns in the opposite order (nulls move to the other end with the direction). */
export const reversed = (terms: readonly OrderTerm[]): OrderTerm[] => terms.map((t) => ({ ...t, descending: !t.descending }));

/** SQL of a row's key as a JSON array of texts, one per term. */
export const keyOf = (terms: readonly OrderTerm[]): string => `json_build_array(${terms.map((t) => `(${t.column.text})::text`).join(', ')})`;

/** The other side of the same place: the rows a `comparison` page leaves out. */
export const complement = (comparison: Comparison): Comparison => (({ '>': '<=', '>=': '<', '<': '>=', '<=': '>' }) as const)[comparison];

export const isBackward = (comparison: Comparison): boolean => comparison.startsWith('<');

/**
 * Consecutive terms of one direction on non-null values, compared as one row value
 * (`(a, id) > (?, ?)`, which an index on those columns answers); a nullable column stands alone.
 */
interface Run {
  terms: OrderTerm[];
  values: unknown[];
  descending: boolean;
  plain: boolean;
}

function runsOf(terms: readonly OrderTerm[], values: readonly unknown[]): Run[] {
  const runs: Run[] = [];
  terms.forEach((t, i) => {
    const value = values[i];
    const plain = !t.column.nullable && value !== null;
    const last = runs.at(-1);
    if (plain && last?.plain && last.descending === t.descending) {
      last.terms.push(t);
      last.values.push(value);
    } else runs.push({ terms: [t], values: [value], descending: t.descending, plain });
  });
  return runs;
}

function rowValue(run: Run): { lhs: string; rhs: string } {
  const wrap = (parts: string[]) => (parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`);
  return { lhs: wrap(run.terms.map((t) => t.column.expr)), rhs: wrap(run.terms.map((t) => `?${t.column.cast}`)) };
}

/** The rows strictly after the run's values (or at them too, `inclusive`), and the rows at them. */
function compare(run: Run, inclusive: boolean): { beyond: Fragment; equal: Fragment } {
  const { lhs, rhs } = rowValue(run);
  if (run.plain) {
    const op = `${run.descending ? '<' : '>'}${inclusive ? '=' : ''}`;
    return { beyond: frag(`${lhs} ${op} ${rhs}`, run.values), equal: frag(`${lhs} = ${rhs}`, run.values) };
  }
  // one nullable column: nulls come after every value ascending, before every value descending
  const [value] = run.values;
  if (value === null) return { beyond: run.descending ? frag(`${lhs} is not null`) : FALSE, equal: frag(`${lhs} is null`) };
  const beyond = run.descending ? frag(`${lhs} < ${rhs}`, [value]) : frag(`(${lhs} > ${rhs} or ${lhs} is null)`, [value]);
  return { beyond, equal: frag(`${lhs} = ${rhs}`, [value]) };
}

/** Lexicographic: beyond the first run, or equal to it and beyond the rest. */
function beyondRuns(runs: readonly Run[], inclusive: boolean): Fragment {
  const [first, ...rest] = runs;
  if (rest.length === 0) return compare(first!, inclusive).beyond;
  const { beyond, equal } = compare(first!, false);
  return joinFragments([beyond, joinFragments([equal, beyondRuns(rest, inclusive)], 'and')], 'or');
}

/** The rows on the `comparison` side of the key `values` (bound, one per term; the last term is the unique id). */
export function beyondKey(terms: readonly OrderTerm[], values: readonly unknown[], comparison: Comparison): Fragment {
  const ordered = isBackward(comparison) ? reversed(terms) : terms;
  return beyondRuns(runsOf(ordered, values), comparison.endsWith('='));
}
