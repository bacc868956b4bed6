/**
 * Field declarations: the scalar attributes of a resource. Each helper returns plain data the
 * engine reads to build validation, SQL, filters and the OpenAPI schema; nothing here runs.
 */

/**
 * Filter lookups (django-filter's): `exact` and `icontains` take the field's own name as their
 * parameter (the first of them listed, the other `<name>__<lookup>`), `gte`/`lte` take
 * `<name>_from`/`<name>_to`, the others `<name>__in` (comma-separated), `<name>__isnull`
 * (`true`/`false`) and `<name>__range` (`low,high`, inclusive).
 */
export type Lookup = 'exact' | 'icontains' | 'in' | 'gte' | 'lte' | 'range' | 'isnull';
export type TextLookup = 'exact' | 'icontains' | 'in' | 'isnull';
export type OrderedLookup = 'exact' | 'in' | 'gte' | 'lte' | 'range' | 'isnull';
export type ChoiceLookup = 'exact' | 'in' | 'isnull';

interface FieldCommon<L extends Lookup = never> {
  /** Short English description; German names explained (shown in the schema). */
  description: string;
  /** What the admin app calls the field (default: its name in words, `assigned_user` → "Assigned user"). */
  label?: string;
  /** What the admin app calls the field for a browser that prefers German (default: `label`). */
  labelDe?: string;
  /** Must be present on create and replace. */
  required?: boolean;
  /** May be null. Defaults to true for optional fields without a default. */
  nullable?: boolean;
  /** Served but never written by clients (values sent are ignored). */
  readOnly?: boolean;
  /**
   * Written by the engine as a side effect, not a change anyone made (a user's `last_login`): served,
   * but neither in the audit trail nor in webhook events, so writing only it records and sends
   * nothing. Needs `readOnly`.
   */
  bookkeeping?: boolean;
  /** A list filter named after the field (enum, state and boolean fields have one unless `false`). */
  filter?: boolean;
  /** The filter lookups the field offers, replacing its type's defaults (see `Lookup`). */
  lookups?: readonly L[];
  /** Part of the `?search=` text match. */
  search?: boolean;
  /** Allowed in `?ordering=` (default true). */
  orderable?: boolean;
  /** Allowed in an aggregate's `group_by` (default: enum, state, boolean, date and date-time fields). */
  groupable?: boolean;
  /** Allowed in an aggregate's `sum`, `avg`, `min` and `max` (default: integer and decimal fields). */
  summable?: boolean;
  /** A database unique constraint; a duplicate answers 400 under the field. */
  unique?: boolean;
  /**
   * Field-level permissions (`app.codename`, declared by some resource's `extraPermissions`): a
   * caller without `read` is served the record without the field and cannot filter, order or search
   * by it; a caller without `write` cannot set it (403 naming it). See access/field-permissions.ts.
   */
  read?: string;
  write?: string;
}

export interface StringField extends FieldCommon<TextLookup> {
  type: 'string';
  maxLength: number;
  /** Blank strings are refused unless this is true. */
  allowBlank?: boolean;
  default?: string;
}
/** Longer text (markdown), at most `maxLength` characters (`TEXT_MAX_LENGTH` unless declared). */
export interface TextField extends FieldCommon<TextLookup> {
  type: 'text';
  maxLength: number;
  allowBlank?: boolean;
  default?: string;
}
export interface EmailField extends FieldCommon<TextLookup> {
  type: 'email';
  maxLength: number;
  default?: string;
}
export interface UrlField extends FieldCommon<TextLookup> {
  type: 'url';
  maxLength: number;
  default?: string;
}
/** A UI colour class: base name plus an optional modifier (`blue lighten-2`). */
export interface ColorField extends FieldCommon<ChoiceLookup | 'icontains'> {
  type: 'color';
  default?: string;
}
export interface IntegerField extends FieldCommon<OrderedLookup> {
  type: 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}
/** Exact decimal, stored as numeric(digits, decimals), sent and served as a string. */
export interface DecimalField extends FieldCommon<OrderedLookup> {
  type: 'decimal';
  digits: number;
  decimals: number;
  minimum?: number;
  maximum?: number;
  default?: string;
}
export interface BooleanField extends FieldCommon<'exact' | 'isnull'> {
  type: 'boolean';
  default?: boolean;
  /**
   * Only superusers may set it, and a record where it is true only superusers may change or
   * delete (e.g. `is_superuser`).
   */
  superuserOnly?: boolean;
}
/** Calendar date `YYYY-MM-DD`; lists get `<name>_from` and `<name>_to` filters. */
export interface DateField extends FieldCommon<OrderedLookup> {
  type: 'date';
}
export interface DateTimeField extends FieldCommon<OrderedLookup> {
  type: 'datetime';
}
/** Time of day `HH:MM` or `HH:MM:SS`. */
export interface TimeField extends FieldCommon<OrderedLookup> {
  type: 'time';
}
/** JSON with a declared shape (a JSON Schema the value must satisfy). */
export interface JsonField extends FieldCommon {
  type: 'json';
  schema: Record<string, unknown>;
  default?: unknown;
}
/** How the admin app names a value: in English (default: the value in words) and German (default: the English). */
export interface ValueLabel {
  readonly en?: string;
  readonly de?: string;
}
export interface EnumField<V extends string = string> extends FieldCommon<ChoiceLookup> {
  type: 'enum';
  values: readonly V[];
  valueLabels?: { readonly [S in NoInfer<V>]?: ValueLabel };
  default?: NoInfer<V>;
  /**
   * Not stored: computed from the record a foreign key points at, e.g. an issue's classification
   * from its tracker's visibility. Read-only and filterable.
   */
  derived?: { via: string; field: string; map: Readonly<Record<string, V>> };
}
/**
 * A lifecycle: an enum whose changes follow declared transitions. Moves are recorded.
 * `transitions[from]` lists the states reachable from `from`; a state without an entry is final.
 */
export interface StateField<V extends string = string> extends FieldCommon<ChoiceLookup> {
  type: 'state';
  values: readonly V[];
  valueLabels?: { readonly [S in NoInfer<V>]?: ValueLabel };
  default: NoInfer<V>;
  /** States a record may be created in. */
  initial: readonly NoInfer<V>[];
  transitions: { readonly [S in V]?: readonly NoInfer<V>[] };
}
/** A password: write-only, at least `minLength` characters, stored as a scrypt hash. */
export interface PasswordField extends FieldCommon {
  type: 'password';
  minLength: number;
}
/** A list of permission names (`app.action_model`), each checked against the registry. */
export interface PermissionListField extends FieldCommon {
  type: 'permissions';
}

/**
 * A file kept with the record (engine/files): uploaded and downloaded at `<record>/<name>`, every
 * upload a new version. Served as its metadata and download URL, never written through the JSON
 * body. `types`: the media types accepted (default: any); `maxBytes`: below FILE_MAX_BYTES.
 */
export interface FileField extends FieldCommon {
  type: 'file';
  readOnly: true;
  maxBytes?: number;
  types?: readonly string[];
}
/** The files attached to a record (a declaration's `attachments: true`): served as their metadata, written at `<record>/attachments`. */
export interface AttachmentsField extends FieldCommon {
  type: 'attachments';
  readOnly: true;
}
/** A Swiss social security number (AHV number), stored as `756.XXXX.XXXX.XX`, encrypted at rest. */
export interface AhvField extends FieldCommon {
  type: 'ahv';
}
/** An IBAN, stored without spaces in capitals, encrypted at rest. */
export interface IbanField extends FieldCommon {
  type: 'iban';
}

export type FieldSpec =
  | StringField
  | TextField
  | EmailField
  | UrlField
  | ColorField
  | IntegerField
  | DecimalField
  | BooleanField
  | DateField
  | DateTimeField
  | TimeField
  | JsonField
  | EnumField
  | StateField
  | PasswordField
  | PermissionListField
  | FileField
  | AttachmentsField
  | AhvField
  | IbanField;

export type FieldType = FieldSpec['type'];

type Options<T extends FieldSpec> = Omit<T, 'type'>;

/** The length of a text field that declares none: a long description, not a document store. */
export const TEXT_MAX_LENGTH = 20_000;

/** Field helpers: `field.string({ maxLength: 255, required: true, description: '…' })`. */
export const field = {
  string: (o: Options<StringField>): StringField => ({ type: 'string', ...o }),
  text: (o: Omit<Options<TextField>, 'maxLength'> & { maxLength?: number }): TextField => ({ type: 'text', maxLength: TEXT_MAX_LENGTH, ...o }),
  email: (o: Options<EmailField>): EmailField => ({ type: 'email', ...o }),
  url: (o: Options<UrlField>): UrlField => ({ type: 'url', ...o }),
  color: (o: Options<ColorField>): ColorField => ({ type: 'color', ...o }),
  integer: (o: Options<IntegerField>): IntegerField => ({ type: 'integer', ...o }),
  decimal: (o: Options<DecimalField>): DecimalField => ({ type: 'decimal', ...o }),
  boolean: (o: Options<BooleanField>): BooleanField => ({ type: 'boolean', ...o }),
  date: (o: Options<DateField>): DateField => ({ type: 'date', ...o }),
  datetime: (o: Options<DateTimeField>): DateTimeField => ({ type: 'datetime', ...o }),
  time: (o: Options<TimeField>): TimeField => ({ type: 'time', ...o }),
  json: (o: Options<JsonField>): JsonField => ({ type: 'json', ...o }),
  enum: <const V extends string>(o: Options<EnumField<V>>): EnumField<V> => ({ type: 'enum', ...o }),
  state: <const V extends string>(o: Options<StateField<V>>): StateField<V> => ({ type: 'state', ...o }),
  password: (o: Options<PasswordField>): PasswordField => ({ type: 'password', ...o }),
  permissions: (o: Options<PermissionListField>): PermissionListField => ({ type: 'permissions', ...o }),
  file: (o: Omit<Options<FileField>, 'readOnly'>): FileField => ({ type: 'file', readOnly: true, ...o }),
  ahv: (o: Options<AhvField>): AhvField => ({ type: 'ahv', ...o }),
  iban: (o: Options<IbanField>): IbanField => ({ type: 'iban', ...o }),
};
