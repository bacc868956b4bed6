/** Closed sets: booleans, enums and states (an enum whose changes follow declared transitions). */
import type { BooleanField, EnumField, StateField } from '../declare/fields.js';
import { type FieldType, whenFiltered } from './field-type.js';
import { parseChoice } from './values.js';

/** Enums and states: one of the declared values, stored as text under a CHECK, filterable by default. */
const choice = {
  lookups: ['exact', 'in', 'isnull'],
  defaultLookups: whenFiltered(['exact']),
  filterValue: (s: EnumField | StateField, raw: string) => parseChoice(raw, s.values),
  filterSchema: (s: EnumField | StateField) => ({ type: 'string', enum: [...s.values] }),
  column: (s: EnumField | StateField) => ({ type: 'text', values: s.values }),
  read: (_s: unknown, column: string) => column,
  schema: (s: EnumField | StateField) => ({ type: 'string', enum: [...s.values] }),
  compare: (value: unknown) => String(value),
  filteredByDefault: true,
  orderable: true,
  documentedExample: 'response',
} as const;

export const enumType: FieldType<EnumField> = {
  ...choice,
  example: (s, _name, n) => s.values[n % s.values.length],
};

/** A state's example is where records start: creating in any other state is refused. */
export const stateType: FieldType<StateField> = {
  ...choice,
  documentedExample: 'request',
  example: (s, _name, n) => (n === 0 ? s.default : s.initial[n % s.initial.length]),
};

export const booleanType: FieldType<BooleanField> = {
  lookups: ['exact', 'isnull'],
  defaultLookups: whenFiltered(['exact']),
  filterValue: (_s, raw) => {
    const parsed = parseChoice(raw, ['true', 'false']);
    return parsed.ok ? { ok: true, value: raw === 'true' } : parsed;
  },
  filterSchema: () => ({ type: 'boolean' }),
  column: () => ({ type: 'boolean' }),
  read: (_s, column) => column,
  schema: () => ({ type: 'boolean' }),
  example: (_s, _name, n) => n % 2 === 1,
  compare: (value) => Number(value),
  filteredByDefault: true,
  orderable: true,
  documentedExample: 'response',
};
