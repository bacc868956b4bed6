/** Structured values: JSON with a declared shape, and lists of permission names. */
import type { JsonField, PermissionListField } from '../declare/fields.js';
import { MAX_LIST_ITEMS } from './values.js';
import { type FieldType, ok, whenFiltered } from './field-type.js';

/** What a type that offers no filter and no ordering says of it (files.ts's types too). */
export const notFiltered = {
  lookups: [],
  defaultLookups: whenFiltered([]),
  filterValue: () => ok(undefined),
  filterSchema: () => ({ type: 'string' }),
  compare: () => '',
  filteredByDefault: false,
  orderable: false,
  documentedExample: 'never',
} as const;

/** A Postgres array literal for text[] parameters (drivers differ in how they send JS arrays). */
const textArray = (items: string[]): string => `{${items.map((s) => `"${s.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

export const jsonType: FieldType<JsonField> = {
  ...notFiltered,
  column: (s) => ({ type: 'jsonb', default: s.default === undefined ? undefined : JSON.stringify(s.default) }),
  read: (_s, column) => column,
  schema: (s) => ({ ...s.schema }),
  bind: (db, value) => db.raw('?::jsonb', [JSON.stringify(value)]),
  example: (s) => s.default ?? (s.schema.type === 'array' ? [] : {}),
  // a nested error is explained by its path; a top-level type error gets the generic message
  message: (keyword, _value, path, ajvMessage) => (path || keyword !== 'type' ? `Invalid value${path ? ` at ${path}` : ''}: ${ajvMessage ?? 'invalid'}.` : undefined),
};

export const permissionsType: FieldType<PermissionListField> = {
  ...notFiltered,
  documentedExample: 'response',
  column: () => ({ type: 'text[]', default: '{}' }),
  read: (_s, column) => column,
  schema: () => ({ type: 'array', maxItems: MAX_LIST_ITEMS, items: { type: 'string', maxLength: 255 } }),
  store: (_s, value) => [...new Set(value as string[])],
  bind: (db, value) => db.raw('?::text[]', [textArray(value as string[])]),
  example: () => [],
};
