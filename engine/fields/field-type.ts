/**
 * A field type is one object (in the spirit of a DRF field class with Django's storage side): it
 * owns its column, its SQL read expression, how a written value is normalised and stored, its
 * request JSON Schema, the filter lookups it supports and how it parses their values, an example
 * value and how two values compare in record rules. The engine asks the object; it never switches
 * on a type name. `engine/fields/index.ts` maps every declared type to its object.
 */
import type { Knex } from 'knex';
import type { FieldSpec, Lookup } from '../declare/fields.js';

export type Schema = Record<string, unknown>;

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };
export const ok = (value: unknown): Parsed => ({ ok: true, value });
export const fail = (message: string): Parsed => ({ ok: false, message });

/** Default lookups of a filterable field (`always` even when not declared filterable). */
export const whenFiltered =
  (lookups: readonly Lookup[], always: readonly Lookup[] = []) =>
  (_spec: unknown, filterable: boolean): readonly Lookup[] =>
    filterable ? [...lookups, ...always] : always;

/** A column as migrations create it and the catalogue reports it. */
export interface ColumnSpec {
  /** PostgreSQL type: `varchar`, `text`, `integer`, `numeric`, `boolean`, `date`, `timestamptz`, `time`, `jsonb`, `text[]`. */
  type: string;
  length?: number;
  precision?: number;
  scale?: number;
  /** Allowed values, enforced by a CHECK constraint. */
  values?: readonly string[];
  /**
   * The database default where it is not the declared default as it stands: JSON as its text, an
   * empty permission list. The database default is what an insert without the field stores.
   */
  default?: string;
}

export interface FieldType<S extends FieldSpec = FieldSpec> {
  column(spec: S): ColumnSpec;
  /** The served value as SQL over `column` (an aliased column reference); null when never served. */
  read(spec: S, column: string): string | null;
  /** Request JSON Schema of one value (the caller adds description and nullability). */
  schema(spec: S): Schema;
  /** A body value made ready for validation (e.g. a decimal sent as a JSON number becomes its text). */
  normalise?(spec: S, value: unknown): unknown;
  /** A validated, non-null value as stored, still plain JSON (a password hashed, a list without repeats). */
  store?(spec: S, value: unknown): Promise<unknown> | unknown;
  /** A stored value bound for a Knex write where the driver cannot infer its type (JSON, arrays). */
  bind?(db: Knex | Knex.Transaction, value: unknown): Knex.Raw;
  /** Filter lookups the type supports, and those a field gets when its declaration names none. */
  readonly lookups: readonly Lookup[];
  defaultLookups(spec: S, filterable: boolean): readonly Lookup[];
  /** Parses one filter value (of `exact`, `in`, and bounds unless `bound` says otherwise). */
  filterValue(spec: S, raw: string): Parsed;
  /** OpenAPI schema of one filter value. */
  filterSchema(spec: S): Schema;
  /** SQL cast of a bound filter value (`::date`), where the driver cannot infer it. */
  readonly cast?: string;
  /**
   * How bounds (`gte`, `lte`, `range`) parse and apply; absent: as `exact` values, `expr >= ?`.
   * Lets dates take date-times, and date-times a bare date meaning the whole day.
   */
  readonly bound?: {
    parse(raw: string): Parsed;
    schema: Schema;
    where(expr: string, op: '>=' | '<=', value: unknown): { sql: string; bindings: unknown[] };
  };
  /** A valid example value; `n` (from 1) varies it between records, 0 asks for a fixed one for the schema. */
  example(spec: S, name: string, n: number): unknown;
  /** A value made comparable with `<` in record rules (`order`). */
  compare(value: unknown): number | string;
  /** The DRF message for a JSON Schema keyword failing on a value of this type, where the generic one does not fit. */
  message?(keyword: string, value: unknown, path: string, ajvMessage: string | undefined): string | undefined;
  /**
   * Where the schema shows a fixed example: `request` (requests and responses) where Swagger UI's own
   * sample would not be valid or plausible (numbers at their maximum, decimals, colours), `response`
   * where a fixed request value could collide with itself in unique fields, `never` for secrets and
   * free-form JSON.
   */
  readonly documentedExample: 'request' | 'response' | 'never';
  /** Filterable when the declaration does not say (enums, states, booleans). */
  readonly filteredByDefault: boolean;
  /** Orderable when the declaration does not say. */
  readonly orderable: boolean;
  /** Stored encrypted (storage/field-encryption.ts): the service needs FIELD_ENCRYPTION_KEY. */
  readonly encrypted?: boolean;
}
