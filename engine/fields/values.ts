/** Parsers and SQL bounds shared by field types: integers, choices, calendar dates and moments. */
import { FIELD_MESSAGES } from '../errors.js';
import { fail, ok, type Parsed } from './field-type.js';

export const INT_MAX = 2147483647;
export const INT_MIN = -2147483648;
/** Longest id or name list a body may carry: one query parameter per item, and PostgreSQL takes 65,535. */
export const MAX_LIST_ITEMS = 1000;

const INTEGER = /^-?\d{1,10}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;

export function isCalendarDate(v: string): boolean {
  if (!DATE.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

export const parseInteger = (v: string): Parsed => (INTEGER.test(v) && Number(v) >= INT_MIN && Number(v) <= INT_MAX ? ok(Number(v)) : fail(FIELD_MESSAGES.notANumber));
export const parseDecimal = (v: string): Parsed => (DECIMAL.test(v) && v.length <= 40 ? ok(v) : fail(FIELD_MESSAGES.notANumber));
export const parseChoice = (v: string, values: readonly string[]): Parsed =>
  values.includes(v) ? ok(v) : fail(`Select a valid choice. ${v} is not one of the available choices.`);
export const parseDate = (v: string): Parsed => (isCalendarDate(v) ? ok(v) : fail('Enter a valid date.'));
export const parseTime = (v: string): Parsed => (TIME.test(v) ? ok(v) : fail('Enter a valid time.'));

export const parseDateTime = (v: string): Parsed =>
  DATETIME.test(v) && isCalendarDate(v.slice(0, 10)) && !Number.isNaN(Date.parse(v)) ? ok(v) : fail('Enter a valid date/time.');

/** A moment: a date, or a date-time with its offset. */
export type Moment = { date: string } | { datetime: string };

export const parseMoment = (v: string): Parsed => {
  if (isCalendarDate(v)) return ok({ date: v });
  if (DATETIME.test(v) && isCalendarDate(v.slice(0, 10)) && !Number.isNaN(Date.parse(v))) return ok({ datetime: v });
  return fail('Enter a valid date/time.');
};

/**
 * `expr` on the right side of a moment: a date-time compares as a timestamp; a bare date as a
 * date, or, on a timestamp column (`wholeDay`), as the whole UTC day.
 */
export function momentBound(expr: string, op: '>=' | '<=', value: unknown, wholeDay: boolean): { sql: string; bindings: unknown[] } {
  const m = value as Moment;
  if ('datetime' in m) return { sql: `${expr} ${op} ?::timestamptz`, bindings: [m.datetime] };
  if (!wholeDay) return { sql: `${expr} ${op} ?::date`, bindings: [m.date] };
  return op === '>='
    ? { sql: `${expr} >= (?::date)::timestamp at time zone 'UTC'`, bindings: [m.date] }
    : { sql: `${expr} < ((?::date) + 1)::timestamp at time zone 'UTC'`, bindings: [m.date] };
}

/** A timestamptz expression as served: UTC, milliseconds, `Z`. */
export const isoTimestamp = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
