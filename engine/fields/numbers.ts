/** Numbers: 32-bit integers, and exact decimals sent and served as strings. */
import type { DecimalField, IntegerField } from '../declare/fields.js';
import { type FieldType, whenFiltered } from './field-type.js';
import { INT_MAX, INT_MIN, parseDecimal, parseInteger } from './values.js';

const ordered = {
  lookups: ['exact', 'in', 'gte', 'lte', 'range', 'isnull'],
  defaultLookups: whenFiltered(['exact']),
  compare: (value: unknown) => Number(value),
  filteredByDefault: false,
  orderable: true,
  documentedExample: 'request',
} as const;

export const integerType: FieldType<IntegerField> = {
  ...ordered,
  column: () => ({ type: 'integer' }),
  read: (_s, column) => column,
  schema: (s) => ({ type: 'integer', minimum: s.minimum ?? INT_MIN, maximum: s.maximum ?? INT_MAX }),
  filterValue: (_s, raw) => parseInteger(raw),
  filterSchema: () => ({ type: 'integer' }),
  example: (s, _name, n) => {
    const lo = s.minimum ?? 1;
    const hi = s.maximum ?? lo + 10;
    return Math.min(hi, lo + (n % Math.max(1, hi - lo + 1)));
  },
};

export const decimalType: FieldType<DecimalField> = {
  ...ordered,
  column: (s) => ({ type: 'numeric', precision: s.digits, scale: s.decimals }),
  read: (_s, column) => `${column}::text`,
  schema: (s) => ({
    type: 'string',
    format: 'decimal',
    'x-decimal': { digits: s.digits, decimals: s.decimals, minimum: s.minimum, maximum: s.maximum },
  }),
  // JSON numbers are taken as their decimal text, so one validator checks both
  normalise: (_s, value) => (typeof value === 'number' && Number.isFinite(value) ? String(value) : value),
  filterValue: (_s, raw) => parseDecimal(raw),
  filterSchema: () => ({ type: 'string', format: 'decimal' }),
  cast: '::numeric',
  example: (s, _name, n) => {
    const v = Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 10 ** (s.digits - s.decimals) - 1, 12.5 * Math.max(n, 1)));
    return v.toFixed(s.decimals);
  },
};
