/**
 * List filters (CONTRACT 9) as a table of kinds: each kind parses its query value (or names the
 * error) and turns it into a SQL condition. Every resource's filters are derived from its
 * declaration once, and the OpenAPI generator documents the same list.
 */
import type { Resource } from '../registry/resource.js';
import { col, frag, q, type Fragment } from '../storage/sql.js';
import { ROW, expressionOf } from '../storage/serialise.js';

export type FilterKind = 'text' | 'exact' | 'choice' | 'boolean' | 'integer' | 'id' | 'member' | 'uuid' | 'date' | 'dateFrom' | 'dateTo' | 'timeFrom' | 'timeTo';

export interface Filter {
  param: string;
  kind: FilterKind;
  /** SQL expression over the row the condition applies to. */
  expr: string;
  description: string;
  values?: readonly string[];
  /** For `member`: the join table, its source and target columns. */
  join?: { table: string; source: string; target: string };
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };
const ok = (value: unknown): Parsed => ({ ok: true, value });
const fail = (message: string): Parsed => ({ ok: false, message });

const INTEGER = /^-?\d{1,10}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function isCalendarDate(v: string): boolean {
  if (!DATE.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

const parseInteger = (v: string): Parsed => (INTEGER.test(v) && Math.abs(Number(v)) <= 2147483647 ? ok(Number(v)) : fail('Enter a number.'));
const choice = (v: string, values: readonly string[]): Parsed =>
  values.includes(v) ? ok(v) : fail(`Select a valid choice. ${v} is not one of the available choices.`);
/** A date or a date-time; a bare date as an upper bound includes that whole day. */
const parseMoment = (v: string): Parsed => {
  if (isCalendarDate(v)) return ok({ date: v });
  if (DATETIME.test(v) && isCalendarDate(v.slice(0, 10)) && !Number.isNaN(Date.parse(v))) return ok({ datetime: v });
  return fail('Enter a valid date/time.');
};

const KINDS: Record<FilterKind, { parse(v: string, f: Filter): Parsed; where(f: Filter, value: unknown): Fragment }> = {
  text: { parse: ok, where: (f, v) => frag(`strpos(lower(${f.expr}), lower(?)) > 0`, [v]) },
  exact: { parse: ok, where: (f, v) => frag(`${f.expr} = ?`, [v]) },
  choice: { parse: (v, f) => choice(v, f.values!), where: (f, v) => frag(`${f.expr} = ?`, [v]) },
  boolean: { parse: (v) => choice(v, ['true', 'false']), where: (f, v) => frag(`${f.expr} = ?`, [v === 'true']) },
  integer: { parse: parseInteger, where: (f, v) => frag(`${f.expr} = ?`, [v]) },
  id: { parse: parseInteger, where: (f, v) => frag(`${f.expr} = ?`, [v]) },
  member: {
    parse: parseInteger,
    where: (f, v) => frag(`exists (select 1 from ${q(f.join!.table)} m where m.${q(f.join!.source)} = ${ROW}.id and m.${q(f.join!.target)} = ?)`, [v]),
  },
  uuid: { parse: (v) => (UUID.test(v) ? ok(v.toLowerCase()) : fail('Enter a valid UUID.')), where: (f, v) => frag(`${f.expr} = ?::uuid`, [v]) },
  date: { parse: (v) => (isCalendarDate(v) ? ok(v) : fail('Enter a valid date.')), where: (f, v) => frag(`${f.expr} = ?::date`, [v]) },
  dateFrom: { parse: parseMoment, where: (f, v) => momentBound(f.expr, '>=', v) },
  dateTo: { parse: parseMoment, where: (f, v) => momentBound(f.expr, '<=', v) },
  timeFrom: { parse: parseMoment, where: (f, v) => momentBound(f.expr, '>=', v, true) },
  timeTo: { parse: parseMoment, where: (f, v) => momentBound(f.expr, '<=', v, true) },
};

function momentBound(expr: string, op: '>=' | '<=', value: unknown, timestamp = false): Fragment {
  const m = value as { date?: string; datetime?: string };
  if (m.datetime !== undefined) return frag(`${expr} ${op} ?::timestamptz`, [m.datetime]);
  if (!timestamp) return frag(`${expr} ${op} ?::date`, [m.date]);
  // a date bound on a timestamp covers the whole UTC day
  return op === '>=' ? frag(`${expr} >= (?::date)::timestamp at time zone 'UTC'`, [m.date]) : frag(`${expr} < ((?::date) + 1)::timestamp at time zone 'UTC'`, [m.date]);
}

/** The filters a resource offers, in documentation order. */
export function filtersOf(resource: Resource): Filter[] {
  const filters: Filter[] = [];
  for (const f of resource.fields) {
    const expr = expressionOf(resource, f);
    const s = f.spec;
    if (f.filterable) {
      switch (s.type) {
        case 'enum':
        case 'state':
          filters.push({ param: f.name, kind: 'choice', expr, values: s.values, description: `Only records whose ${f.name} is this value.` });
          break;
        case 'boolean':
          filters.push({ param: f.name, kind: 'boolean', expr, description: `Only records whose ${f.name} is true or false.` });
          break;
        case 'integer':
          filters.push({ param: f.name, kind: 'integer', expr, description: `Only records whose ${f.name} equals this number.` });
          break;
        case 'date':
          filters.push({ param: f.name, kind: 'date', expr, description: `Only records whose ${f.name} is this date.` });
          break;
        default:
          filters.push({ param: f.name, kind: 'text', expr, description: `Case-insensitive substring match on ${f.name}.` });
      }
    }
    if (s.type === 'date' || s.type === 'datetime') {
      const [from, to]: [FilterKind, FilterKind] = s.type === 'date' ? ['dateFrom', 'dateTo'] : ['timeFrom', 'timeTo'];
      filters.push({ param: `${f.name}_from`, kind: from, expr, description: `Only records whose ${f.name} is on or after this date (inclusive).` });
      filters.push({ param: `${f.name}_to`, kind: to, expr, description: `Only records whose ${f.name} is on or before this date (inclusive).` });
    }
  }
  for (const fk of resource.foreignKeys) {
    if (fk.spec.filter === false) continue;
    filters.push({ param: fk.name, kind: 'id', expr: col(ROW, fk.column), description: `Only records whose ${fk.name} is the ${fk.target.name} with this id.` });
  }
  for (const m of resource.manyToMany) {
    if (m.spec.filter === false) continue;
    filters.push({
      param: m.name,
      kind: 'member',
      expr: '',
      join: { table: m.spec.table, source: m.spec.sourceColumn, target: m.spec.targetColumn },
      description: `Only records linked to the ${m.target.name} with this id through ${m.name}.`,
    });
  }
  filters.push(
    { param: 'uuid', kind: 'uuid', expr: `${ROW}.uuid`, description: 'Only the record with this UUID.' },
    { param: 'remote_key', kind: 'exact', expr: `${ROW}.remote_key`, description: 'Only the record with this external key.' },
    { param: 'created_after', kind: 'timeFrom', expr: `${ROW}.created`, description: 'Created at or after this date or date-time (inclusive).' },
    { param: 'created_before', kind: 'timeTo', expr: `${ROW}.created`, description: 'Created at or before this date or date-time (inclusive).' },
    { param: 'modified_after', kind: 'timeFrom', expr: `${ROW}.modified`, description: 'Modified at or after this date or date-time (inclusive).' },
    { param: 'modified_before', kind: 'timeTo', expr: `${ROW}.modified`, description: 'Modified at or before this date or date-time (inclusive).' },
  );
  return filters;
}

/** Applies the filters present in `query`; every invalid value is reported under its parameter. */
export function filterConditions(filters: readonly Filter[], query: Record<string, string>, errors: Record<string, string[]>): Fragment[] {
  const conditions: Fragment[] = [];
  for (const f of filters) {
    const raw = query[f.param];
    if (raw === undefined) continue;
    const kind = KINDS[f.kind];
    const parsed = kind.parse(raw, f);
    if (parsed.ok) conditions.push(kind.where(f, parsed.value));
    else errors[f.param] = [parsed.message];
  }
  return conditions;
}
