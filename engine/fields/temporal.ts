/** Dates, date-times (served in UTC with milliseconds and `Z`) and times of day. */
import type { DateField, DateTimeField, TimeField } from '../declare/fields.js';
import { type FieldType, whenFiltered } from './field-type.js';
import { isoTimestamp, momentBound, parseDate, parseDateTime, parseMoment, parseTime } from './values.js';

const day = (n: number) => String(1 + (n % 28)).padStart(2, '0');
/** Bounds take a date or a date-time: `deadline_from=2026-03-01`, `created_after=2026-03-01T12:00Z`. */
const MOMENT_SCHEMA = { anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }] };

/** Dates and date-times always offer `_from`/`_to`; the plain name only when declared filterable. */
const rangeFirst = {
  lookups: ['exact', 'in', 'gte', 'lte', 'range', 'isnull'],
  defaultLookups: whenFiltered(['exact'], ['gte', 'lte']),
  filteredByDefault: false,
  orderable: true,
  documentedExample: 'response',
} as const;

export const dateType: FieldType<DateField> = {
  ...rangeFirst,
  column: () => ({ type: 'date' }),
  read: (_s, column) => `to_char(${column}, 'YYYY-MM-DD')`,
  schema: () => ({ type: 'string', format: 'date' }),
  filterValue: (_s, raw) => parseDate(raw),
  filterSchema: () => ({ type: 'string', format: 'date' }),
  cast: '::date',
  bound: { parse: parseMoment, schema: MOMENT_SCHEMA, where: (expr, op, value) => momentBound(expr, op, value, false) },
  example: (_s, _name, n) => `2026-03-${day(n)}`,
  compare: (value) => String(value),
};

export const dateTimeType: FieldType<DateTimeField> = {
  ...rangeFirst,
  // milliseconds, as served: a filter by a served value then finds its record
  column: () => ({ type: 'timestamptz', precision: 3 }),
  read: (_s, column) => isoTimestamp(column),
  schema: () => ({ type: 'string', format: 'date-time' }),
  filterValue: (_s, raw) => parseDateTime(raw),
  filterSchema: () => ({ type: 'string', format: 'date-time' }),
  cast: '::timestamptz',
  bound: { parse: parseMoment, schema: MOMENT_SCHEMA, where: (expr, op, value) => momentBound(expr, op, value, true) },
  example: (_s, _name, n) => `2026-03-${day(n)}T09:00:00.000Z`,
  compare: (value) => Date.parse(String(value)),
};

export const timeType: FieldType<TimeField> = {
  ...rangeFirst,
  documentedExample: 'request',
  defaultLookups: whenFiltered(['exact']),
  column: () => ({ type: 'time' }),
  read: (_s, column) => `${column}::text`,
  schema: () => ({ type: 'string', format: 'time-of-day' }),
  filterValue: (_s, raw) => parseTime(raw),
  filterSchema: () => ({ type: 'string', format: 'time-of-day' }),
  cast: '::time',
  example: () => '08:30:00',
  compare: (value) => (String(value).length === 5 ? `${String(value)}:00` : String(value)),
};
