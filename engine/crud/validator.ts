/**
 * Ajv validators for write bodies, compiled once per resource at start-up (a full one for
 * create and replace, one without `required` for PATCH), and the mapping of Ajv's errors to
 * the messages of CONTRACT 3, every offending field at once.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { validAhv, validIban } from '../fields/identifiers.js';
import type { FieldSpec } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';
import { emptyMap, FIELD_MESSAGES } from '../errors.js';
import { typeOf } from '../fields/index.js';
import { missingReference } from '../write/reference.js';
import { bodySchema } from './body-schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface DecimalRule {
  digits: number;
  decimals: number;
  minimum?: number;
  maximum?: number;
}

function decimalMessage(value: string, rule: DecimalRule): string | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return 'A valid number is required.';
  // counted as Python's Decimal does: leading zeros of the whole part are not digits
  const whole = m[2]!.replace(/^0+/, '');
  const fraction = m[3] ?? '';
  const wholeAllowed = rule.digits - rule.decimals;
  // DRF's order: total digits, then decimal places, then digits before the point
  if (whole.length + fraction.length > rule.digits) return `Ensure that there are no more than ${rule.digits} digits in total.`;
  if (fraction.length > rule.decimals) return `Ensure that there are no more than ${rule.decimals} decimal places.`;
  if (whole.length > wholeAllowed) return `Ensure that there are no more than ${wholeAllowed} digits before the decimal point.`;
  const n = Number(value);
  if (rule.minimum !== undefined && n < rule.minimum) return `Ensure this value is greater than or equal to ${rule.minimum}.`;
  if (rule.maximum !== undefined && n > rule.maximum) return `Ensure this value is less than or equal to ${rule.maximum}.`;
  return null;
}

export function createAjv(): Ajv {
  // verbose: errors carry their schema and value, so an out-of-range reference can name its id
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, verbose: true });
  ajv.addKeyword({ keyword: 'x-references', schemaType: 'string' });
  addFormats(ajv, ['date', 'date-time', 'email', 'uri', 'uuid']);
  ajv.addFormat('time-of-day', /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/);
  ajv.addFormat('decimal', true);
  ajv.addFormat('ahv-number', validAhv);
  ajv.addFormat('iban', validIban);
  ajv.addKeyword({
    keyword: 'x-decimal',
    type: 'string',
    errors: true,
    validate: function check(rule: DecimalRule, data: string): boolean {
      const message = decimalMessage(data, rule);
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = message ? [{ keyword: 'x-decimal', message, params: {} }] : [];
      return message === null;
    },
  });
  return ajv;
}

/** Python type names, as DRF's messages use them. */
export function pyType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** The contract's messages for a value of the wrong type, for the checks outside the body schema too (query parameters, imports). */
export const NOT_AN_INTEGER = 'A valid integer is required.';
export const NOT_A_BOOLEAN = 'Must be a valid boolean.';

const TYPE_MESSAGES: Record<string, (value: unknown) => string> = {
  integer: () => NOT_AN_INTEGER,
  number: () => 'A valid number is required.',
  boolean: () => NOT_A_BOOLEAN,
  string: () => 'Not a valid string.',
  array: (v) => `Expected a list of items but got type "${pyType(v)}".`,
  object: (v) => `Expected a dictionary of items but got type "${pyType(v)}".`,
};

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'Enter a valid email address.',
  uri: 'Enter a valid URL.',
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  'date-time': 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
  'time-of-day': 'Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].',
};

/** The declared spec of a body field, where there is one (JSON fields explain nested errors). */
type SpecOf = (field: string) => FieldSpec | undefined;

function message(err: ErrorObject, body: Record<string, unknown>, field: string, nested: boolean, specOf: SpecOf): string {
  const value = body[field];
  const spec = specOf(field);
  const own = spec && typeOf(spec).message?.(err.keyword, value, err.instancePath.slice(field.length + 1), err.message);
  if (own) return own;
  // an id below 1 names no record: the contract's message for a missing one (above the integer range, its range message)
  if (err.keyword === 'minimum' && (err.parentSchema as Record<string, unknown> | undefined)?.['x-references']) {
    return missingReference({ id: err.data });
  }
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'type': {
      if (!nested && value === null) return 'This field may not be null.';
      const expected = String(Array.isArray(p.type) ? p.type[0] : p.type).split(',')[0]!;
      if (nested) return NOT_AN_INTEGER;
      return (TYPE_MESSAGES[expected] ?? TYPE_MESSAGES.string!)(value);
    }
    case 'enum': {
      // the offending value itself: an item of a list, not the whole list
      const bad: unknown = err.data === undefined ? value : err.data;
      return `"${typeof bad === 'string' ? bad : shown(bad)}" is not a valid choice.`;
    }
    case 'maxLength':
      return `Ensure this field has no more than ${String(p.limit)} characters.`;
    case 'maxItems':
      return `Ensure this field has no more than ${String(p.limit)} elements.`;
    case 'minLength':
      return p.limit === 1 ? FIELD_MESSAGES.blank : `Ensure this field has at least ${String(p.limit)} characters.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${String(p.limit)}.`;
    case 'minimum':
      return `Ensure this value is greater than or equal to ${String(p.limit)}.`;
    case 'format':
      return FORMAT_MESSAGES[String(p.format)] ?? 'Invalid value.';
    case 'pattern': {
      // a pattern that narrows a format (a URL's scheme and host) is part of it, and fails with its message
      const format = (err.parentSchema as Record<string, unknown> | undefined)?.format;
      return (typeof format === 'string' && FORMAT_MESSAGES[format]) || (err.message ?? 'Invalid value.');
    }
    default:
      return err.message ?? 'Invalid value.';
  }
}

/** A value as JSON for a message; one nested deeper than JSON.stringify can go is named by its type. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return Array.isArray(value) ? 'list' : typeof value;
  }
}

export const NUL_MESSAGE = 'Null characters are not allowed.';

/** The first string anywhere in the value (keys of nested objects included) that passes `test`. */
export function findString(value: unknown, test: (s: string) => boolean): string | undefined {
  // a list of what is left to look at, not recursion: a body can nest deeper than the call stack goes
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (test(v)) return v;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        if (test(k)) return k;
        pending.push(item);
      }
    }
  }
  return undefined;
}

/** Whether a string anywhere in the value (keys of nested objects included) holds U+0000. */
export const hasNul = (value: unknown): boolean => findString(value, (s) => s.includes('\0')) !== undefined;

export interface BodyValidator {
  /** Field name → messages; empty when the body is valid. */
  (body: Record<string, unknown>): Record<string, string[]>;
}

function toValidator(compile: () => ValidateFunction, specOf: SpecOf): BodyValidator {
  let fn: ValidateFunction | undefined;
  return (body) => {
    // compiled on first use: compiling every resource's validators at start-up takes about a second
    fn ??= compile();
    const errors = emptyMap<string[]>();
    // PostgreSQL stores no NUL in text or jsonb: refused here, by name, never by a driver message
    const nul = Object.keys(body).filter((field) => hasNul(body[field]));
    if (fn(body) && !nul.length) return errors;
    for (const err of fn.errors ?? []) {
      const [, top = '', ...rest] = err.instancePath.split('/');
      const p = err.params as { missingProperty?: string; additionalProperty?: string };
      const field = err.keyword === 'required' ? String(p.missingProperty) : err.keyword === 'additionalProperties' && !top ? String(p.additionalProperty) : top;
      const text =
        err.keyword === 'required' ? FIELD_MESSAGES.required : err.keyword === 'additionalProperties' && !top ? FIELD_MESSAGES.unknown : message(err, body, field, rest.length > 0, specOf);
      const list = (errors[field || 'non_field_errors'] ??= []);
      if (!list.includes(text)) list.push(text);
    }
    // a blank value needs no further explanation (DRF reports only that)
    for (const [field, list] of Object.entries(errors)) {
      if (list.includes(FIELD_MESSAGES.blank)) errors[field] = [FIELD_MESSAGES.blank];
    }
    for (const field of nul) errors[field] = [NUL_MESSAGE];
    return errors;
  };
}

export interface ResourceValidators {
  create: BodyValidator;
  patch: BodyValidator;
}

export function compileValidators(ajv: Ajv, resource: Resource): ResourceValidators {
  const specOf: SpecOf = (name) => resource.fields.find((f) => f.name === name)?.spec;
  return {
    create: toValidator(() => ajv.compile(bodySchema(resource, 'create')), specOf),
    patch: toValidator(() => ajv.compile(bodySchema(resource, 'patch')), specOf),
  };
}

/** A validator for a body that is not a resource's (sign-in, tokens), with the same messages. */
export function compileBodyValidator(ajv: Ajv, schema: Record<string, unknown>): BodyValidator {
  return toValidator(() => ajv.compile(schema), () => undefined);
}
