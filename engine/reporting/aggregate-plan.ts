/**
 * An aggregate request (`group_by`, `count`, `sum`, `avg`, `min`, `max`) as one SQL statement over
 * the rows the same list request would serve: the list plan's filters and search, the caller's
 * record rule, and only the names the resource view (describe/view.ts) declares groupable or
 * summable as the caller's field mask leaves them. Each answer row is one group's JSON text, built
 * by PostgreSQL, so counts and exact decimals come back alike from pg and PGlite. No database access here.
 */
import { emptyMap, ValidationError, type FieldErrors } from '../errors.js';
import type { ResourceView } from '../describe/view.js';
import { typeOf } from '../fields/index.js';
import { parseChoice } from '../fields/values.js';
import { findField, findForeignKey, type Resource } from '../registry/resource.js';
import { col, frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import { expressionOf, ROW } from '../storage/serialise.js';

export const BUCKETS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** The aggregate functions, each a query parameter naming summable fields. */
export const MEASURES = ['sum', 'avg', 'min', 'max'] as const;
type Measure = (typeof MEASURES)[number];

/** The parameters an aggregate reads beside the list's filters and search. */
export const AGGREGATE_PARAMETERS = ['group_by', 'count', ...MEASURES] as const;

/** List parameters that mean nothing to an aggregate: left out before the list plan reads the query. */
export const NOT_AGGREGATED = ['ordering', 'limit', 'offset', 'cursor', 'fields', 'expand', 'count'] as const;

/** PostgreSQL passes a function at most 100 arguments: a JSON object of a name and a value each holds 50. */
const MAX_NAMES = 50;

/** The comma-separated names of `raw`, or none (with an error) when there are more than MAX_NAMES. */
function namesOf(param: string, raw: string | undefined, errors: FieldErrors): string[] {
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length <= MAX_NAMES) return names;
  errors[param] = [`Name at most ${MAX_NAMES} fields.`];
  return [];
}

interface Group {
  /** The key in the answer: the name, or `name:bucket`. */
  key: string;
  /** What is grouped by, and bound into it (the time zone). */
  value: Fragment;
  /** The group's value as served, from the grouped column `g<i>`. */
  served: (column: string) => string;
}

/** A column's value as the list serves it (the type's served form). */
function servedAs(resource: Resource, name: string): { expr: string; served: (column: string) => string } {
  const field = findField(resource, name);
  if (field) return { expr: expressionOf(resource, field), served: (c) => typeOf(field.spec).read(field.spec, c) ?? c };
  const fk = findForeignKey(resource, name);
  if (fk) return { expr: col(ROW, fk.column), served: (c) => c };
  // the record's own times
  return { expr: `${ROW}.${q(name)}`, served: (c) => c };
}

const isDate = (resource: Resource, name: string): boolean => findField(resource, name)?.spec.type === 'date';

/**
 * A time bucket: the date its day, week (from Monday), month, quarter or year starts on, a moment
 * read in `timeZone` (a date is a day already).
 */
function bucketed(resource: Resource, name: string, expr: string, bucket: Bucket, timeZone: string): Group {
  const value = isDate(resource, name) ? frag(`date_trunc('${bucket}', ${expr}::timestamp)`) : frag(`date_trunc('${bucket}', ${expr} at time zone ?)`, [timeZone]);
  return { key: `${name}:${bucket}`, value, served: (c) => `to_char(${c}, 'YYYY-MM-DD')` };
}

function parseGroups(view: ResourceView, raw: string | undefined, timeZone: string, errors: FieldErrors): Group[] {
  const groups: Group[] = [];
  for (const term of namesOf('group_by', raw, errors)) {
    const [name = '', bucket, ...extra] = term.split(':');
    const declared = view.groupable.find((g) => g.name === name);
    const fail = (message: string) => (errors.group_by ??= []).push(message);
    if (!declared || extra.length) fail(`Cannot group by "${term}".`);
    else if (bucket !== undefined && !declared.buckets) fail(`Cannot group by "${term}": "${name}" is not a date or time.`);
    else if (bucket !== undefined && !BUCKETS.includes(bucket as Bucket)) fail(`Unknown time bucket "${bucket}": use ${BUCKETS.join(', ')}.`);
    else if (groups.some((g) => g.key === term)) fail(`"${term}" is named twice.`);
    else {
      const { expr, served } = servedAs(view.resource, name);
      // a moment without a bucket is grouped by its day: an exact instant makes a group of one
      groups.push(declared.buckets ? bucketed(view.resource, name, expr, (bucket as Bucket | undefined) ?? 'day', timeZone) : { key: name, value: frag(expr), served });
    }
  }
  return groups;
}

interface Measured {
  measure: Measure;
  name: string;
  expr: string;
  served: (column: string) => string;
}

function parseMeasures(view: ResourceView, query: Record<string, string>, errors: FieldErrors): Measured[] {
  const measured: Measured[] = [];
  for (const measure of MEASURES) {
    const names = [...new Set(namesOf(measure, query[measure], errors))];
    for (const name of names) {
      if (!view.summable.includes(name)) (errors[measure] ??= []).push(`Cannot ${measure} "${name}": it is not a summable field.`);
      else measured.push({ measure, name, ...servedAs(view.resource, name) });
    }
  }
  return measured;
}

export interface AggregatePlan {
  /** One row per group, `json` its text; at most `maxGroups + 1` rows, so one more tells the cap was passed. */
  statement: Fragment;
  maxGroups: number;
}

/** Sums and averages as exact decimal texts; least and greatest as the field serves its values. */
function measureSql(m: Measured, column: string): string {
  return m.measure === 'sum' || m.measure === 'avg' ? `${column}::text` : m.served(column);
}

/**
 * `view`: the resource as the caller sees it (viewFor with their mask), so a hidden field is
 * unknown here as in ordering; `where`: the record rule and the list plan's conditions.
 */
export function planAggregate(view: ResourceView, where: readonly Fragment[], query: Record<string, string>, settings: { timeZone: string; maxGroups: number }): AggregatePlan {
  const errors: FieldErrors = emptyMap();
  const groups = parseGroups(view, query.group_by, settings.timeZone, errors);
  const measured = parseMeasures(view, query, errors);
  let counted = true;
  if (query.count !== undefined) {
    const parsed = parseChoice(query.count, ['true', 'false']);
    if (parsed.ok) counted = query.count === 'true';
    else errors.count = [parsed.message];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const inner = [
    ...groups.map((g, i) => frag(`${g.value.sql} as g${i}`, g.value.bindings)),
    frag('count(*) as n'),
    ...measured.map((m, i) => frag(`${m.measure}(${m.expr}) as m${i}`)),
  ];
  const cond = joinFragments([...where], 'and');
  const positions = groups.map((_, i) => i + 1).join(', ');
  const grouped = groups.length ? ` group by ${positions} order by ${positions}` : '';
  const select = frag(
    `select ${inner.map((p) => p.sql).join(', ')} from ${q(view.resource.table)} ${ROW} where ${cond.sql}${grouped} limit ?`,
    [...inner.flatMap((p) => p.bindings), ...cond.bindings, settings.maxGroups + 1],
  );
  const pairs = (entries: [string, string][]) => `json_build_object(${entries.map(([k, v]) => `'${k.replace(/'/g, "''")}', ${v}`).join(', ')})`;
  const out: [string, string][] = [['group', pairs(groups.map((g, i) => [g.key, g.served(`a.g${i}`)]))]];
  if (counted) out.push(['count', 'a.n']);
  for (const measure of MEASURES) {
    const of = measured.map((m, i) => [m, i] as const).filter(([m]) => m.measure === measure);
    if (of.length) out.push([measure, pairs(of.map(([m, i]) => [m.name, measureSql(m, `a.m${i}`)]))]);
  }
  return { statement: frag(`select ${pairs(out)}::text as json from (${select.sql}) a`, select.bindings), maxGroups: settings.maxGroups };
}
