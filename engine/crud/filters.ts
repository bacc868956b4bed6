/**
 * List filters (CONTRACT 9) from a table of lookups: each field offers the lookups its declaration
 * names, or its type's defaults; each lookup names its parameter, parses the value through the
 * field's type and turns it into a SQL condition. Foreign keys, many-to-many links and the record
 * columns every resource has add theirs. Built once per resource; the OpenAPI generator documents
 * the same list.
 */
import type { Lookup } from '../declare/index.js';
import type { RecordColumn } from '../declare/engine-table.js';
import type { EnumField } from '../declare/fields.js';
import { typeOf, type FieldType, type Parsed, type Schema } from '../fields/index.js';
import { dateTimeType } from '../fields/temporal.js';
import { parseChoice, parseInteger } from '../fields/values.js';
import { findForeignKey, type Field, type Resource } from '../registry/resource.js';
import { col, contains, FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import { ROW, expressionOf } from '../storage/serialise.js';

type Derived = NonNullable<EnumField['derived']>;

export interface Filter {
  param: string;
  /** The record key it reads (a field, relation or record column) and how it compares. */
  on: { key: string; lookup: Lookup | 'member' };
  description: string;
  /** OpenAPI schema of the parameter's value (array parameters are comma-separated). */
  schema: Schema;
  parse(raw: string): Parsed;
  where(value: unknown): Fragment;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const fail = (message: string): Parsed => ({ ok: false, message });

/** Parses every comma-separated item, or names the first bad one. */
function parseList(raw: string, item: (v: string) => Parsed, count?: number): Parsed {
  const items = raw.split(',').map((s) => s.trim());
  if (count !== undefined && items.length !== count) return fail(`Enter ${count} values separated by a comma.`);
  const values: unknown[] = [];
  for (const v of items) {
    const parsed = item(v);
    if (!parsed.ok) return parsed;
    values.push(parsed.value);
  }
  return { ok: true, value: values };
}

/** What a lookup needs of the field it filters: its name, SQL expression and type. */
interface Target {
  name: string;
  expr: string;
  type: FieldType;
  spec: Field['spec'];
  /** A derived field's value among some: a condition on the stored key it derives through (see derivedAmong). */
  among?: (values: unknown[]) => Fragment;
}

const bind = (t: Target) => `?${t.type.cast ?? ''}`;
/** `exact` and `in`: the value is one of `values`. */
const among = (t: Target, values: unknown[]): Fragment =>
  t.among?.(values) ?? (values.length === 1 ? frag(`${t.expr} = ${bind(t)}`, values) : frag(`${t.expr} in (${values.map(() => bind(t)).join(', ')})`, values));
const parseBound = (t: Target) => (raw: string) => (t.type.bound ? t.type.bound.parse(raw) : t.type.filterValue(t.spec, raw));
const boundWhere = (t: Target, op: '>=' | '<=', value: unknown): Fragment => {
  if (t.type.bound) {
    const b = t.type.bound.where(t.expr, op, value);
    return frag(b.sql, b.bindings);
  }
  return frag(`${t.expr} ${op} ${bind(t)}`, [value]);
};
const boundSchema = (t: Target) => t.type.bound?.schema ?? t.type.filterSchema(t.spec);
const list = (items: Schema): Schema => ({ type: 'array', items });

type LookupFilter = Omit<Filter, 'param' | 'on'> & { suffix: string };

/** `gte` and `lte`: one inclusive bound. */
const boundLookup = (t: Target, op: '>=' | '<=', suffix: string, words: string): LookupFilter => ({
  suffix,
  description: `Only records whose ${t.name} is ${words} this value (inclusive).`,
  schema: boundSchema(t),
  parse: parseBound(t),
  where: (v) => boundWhere(t, op, v),
});

/** Each lookup's parameter suffix (`bare`: the field's own name), parsing, SQL and documentation. */
const LOOKUPS: Record<Lookup, (t: Target) => LookupFilter> = {
  exact: (t) => ({
    suffix: '__exact',
    description: `Only records whose ${t.name} is this value.`,
    schema: t.type.filterSchema(t.spec),
    parse: (raw) => t.type.filterValue(t.spec, raw),
    where: (v) => among(t, [v]),
  }),
  icontains: (t) => ({
    suffix: '__icontains',
    description: `Case-insensitive substring match on ${t.name}.`,
    schema: { type: 'string' },
    parse: (raw) => ({ ok: true, value: raw }),
    where: (v) => contains(t.expr, v as string),
  }),
  in: (t) => ({
    suffix: '__in',
    description: `Only records whose ${t.name} is one of these comma-separated values.`,
    schema: list(t.type.filterSchema(t.spec)),
    parse: (raw) => parseList(raw, (v) => t.type.filterValue(t.spec, v)),
    where: (v) => among(t, v as unknown[]),
  }),
  gte: (t) => boundLookup(t, '>=', '_from', 'on or after'),
  lte: (t) => boundLookup(t, '<=', '_to', 'on or before'),
  range: (t) => ({
    suffix: '__range',
    description: `Only records whose ${t.name} lies between two comma-separated values (inclusive).`,
    schema: { ...list(boundSchema(t)), minItems: 2, maxItems: 2 },
    parse: (raw) => parseList(raw, parseBound(t), 2),
    where: (v) => {
      const [low, high] = v as [unknown, unknown];
      return joinFragments([boundWhere(t, '>=', low), boundWhere(t, '<=', high)], 'and');
    },
  }),
  isnull: (t) => ({
    suffix: '__isnull',
    description: `Only records whose ${t.name} is empty (true) or set (false).`,
    schema: { type: 'boolean' },
    parse: (raw) => parseChoice(raw, ['true', 'false']),
    where: (v) => frag(`${t.expr} is ${v === 'true' ? '' : 'not '}null`),
  }),
};

/** The lookups a field offers: declared, or its type's defaults. */
export function lookupsOf(f: Field): readonly Lookup[] {
  return f.spec.lookups ?? typeOf(f.spec).defaultLookups(f.spec, f.filterable);
}

/**
 * A derived field among `values` as the key it derives through: `tracker_id in (select id from
 * issue_tracker where visibility in (…))` with the source values that map to them. The key's index
 * serves that, where the derived value would be computed for every row.
 */
function derivedAmong(resource: Resource, derived: Derived): (values: unknown[]) => Fragment {
  const fk = findForeignKey(resource, derived.via)!;
  return (values) => {
    const sources = Object.keys(derived.map).filter((from) => values.includes(derived.map[from]));
    if (!sources.length) return FALSE;
    const source = `select d.id from ${q(fk.target.table)} d where ${col('d', derived.field)} in (${sources.map(() => '?').join(', ')})`;
    return frag(`${col(ROW, fk.column)} in (${source})`, sources);
  };
}

function fieldFilters(resource: Resource, f: Field): Filter[] {
  const target: Target = { name: f.name, expr: expressionOf(resource, f), type: typeOf(f.spec) as FieldType, spec: f.spec };
  if (f.spec.type === 'enum' && f.spec.derived) target.among = derivedAmong(resource, f.spec.derived);
  const lookups = lookupsOf(f);
  // the first of exact and icontains takes the field's own name, as today's filters do
  const bare = lookups.find((l) => l === 'exact' || l === 'icontains');
  return lookups.map((l) => {
    const { suffix, ...filter } = LOOKUPS[l](target);
    return { param: l === bare ? f.name : `${f.name}${suffix}`, on: { key: f.name, lookup: l }, ...filter };
  });
}

const integer = (param: string, lookup: 'exact' | 'member', description: string, where: (v: unknown) => Fragment): Filter => ({
  param,
  on: { key: param, lookup },
  description,
  schema: { type: 'integer' },
  parse: parseInteger,
  where,
});

/** A bound on one of the record timestamps every resource has. */
function recordBound(param: string, column: 'created' | 'modified', op: 'gte' | 'lte', description: string): Filter {
  const filter = LOOKUPS[op]({ name: column, expr: `${ROW}.${column}`, type: dateTimeType as FieldType, spec: { type: 'datetime', description } });
  return { param, on: { key: column, lookup: op }, schema: filter.schema, parse: filter.parse, where: filter.where, description };
}

/** The filters a resource offers, in documentation order. */
export function filtersOf(resource: Resource): Filter[] {
  const filters = resource.fields.flatMap((f) => fieldFilters(resource, f));
  for (const fk of resource.foreignKeys) {
    if (fk.spec.filter === false) continue;
    filters.push(integer(fk.name, 'exact', `Only records whose ${fk.name} is the ${fk.target.name} with this id.`, (v) => frag(`${col(ROW, fk.column)} = ?`, [v])));
  }
  for (const m of resource.manyToMany) {
    if (m.spec.filter === false) continue;
    const { table, sourceColumn, targetColumn } = m.spec;
    filters.push(
      integer(m.name, 'member', `Only records linked to the ${m.target.name} with this id through ${m.name}.`, (v) =>
        frag(`exists (select 1 from ${q(table)} m where m.${q(sourceColumn)} = ${ROW}.id and m.${q(targetColumn)} = ?)`, [v]),
      ),
    );
  }
  const has = (column: RecordColumn) => resource.recordColumns.includes(column);
  const recordFilters: [RecordColumn, Filter][] = [
    [
      'uuid',
      {
        param: 'uuid',
        on: { key: 'uuid', lookup: 'exact' },
        description: 'Only the record with this UUID.',
        schema: { type: 'string', format: 'uuid' },
        parse: (v) => (UUID.test(v) ? { ok: true, value: v.toLowerCase() } : fail('Enter a valid UUID.')),
        where: (v) => frag(`${ROW}.uuid = ?::uuid`, [v]),
      },
    ],
    [
      'remote_key',
      {
        param: 'remote_key',
        on: { key: 'remote_key', lookup: 'exact' },
        description: 'Only the record with this external key.',
        schema: { type: 'string' },
        parse: (v) => ({ ok: true, value: v }),
        where: (v) => frag(`${ROW}.remote_key = ?`, [v]),
      },
    ],
    ['created', recordBound('created_after', 'created', 'gte', 'Created at or after this date or date-time (inclusive).')],
    ['created', recordBound('created_before', 'created', 'lte', 'Created at or before this date or date-time (inclusive).')],
    ['modified', recordBound('modified_after', 'modified', 'gte', 'Modified at or after this date or date-time (inclusive).')],
    ['modified', recordBound('modified_before', 'modified', 'lte', 'Modified at or before this date or date-time (inclusive).')],
  ];
  filters.push(...recordFilters.filter(([column]) => has(column)).map(([, filter]) => filter));
  // an engine table may name a parameter otherwise (declare/engine-table.ts `params`)
  const renamed = resource.engineTable?.params ?? {};
  return filters.map((f) => (renamed[f.param] === undefined ? f : { ...f, param: renamed[f.param]! }));
}

/** Applies the filters present in `query`; every invalid value is reported under its parameter. */
export function filterConditions(filters: readonly Filter[], query: Record<string, string>, errors: Record<string, string[]>): Fragment[] {
  const conditions: Fragment[] = [];
  for (const f of filters) {
    const raw = query[f.param];
    if (raw === undefined) continue;
    const parsed = f.parse(raw);
    if (parsed.ok) conditions.push(f.where(parsed.value));
    else errors[f.param] = [parsed.message];
  }
  return conditions;
}
