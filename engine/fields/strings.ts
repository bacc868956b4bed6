/** Text-like types: short strings, long text, e-mail, URL, UI colours and passwords. */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { ColorField, EmailField, PasswordField, StringField, TextField, UrlField } from '../declare/fields.js';
import { type FieldType, ok, whenFiltered } from './field-type.js';

const suffix = () => randomBytes(4).toString('hex');
const words = (name: string) => name.replace(/_/g, ' ');

/** What every type served as a string shares: substring search by default, compared as text. */
export const textual = {
  lookups: ['exact', 'icontains', 'in', 'isnull'],
  defaultLookups: whenFiltered(['icontains']),
  filterValue: (_spec: unknown, raw: string) => ok(raw),
  filterSchema: () => ({ type: 'string' }),
  read: (_spec: unknown, column: string) => column,
  compare: (value: unknown) => String(value),
  filteredByDefault: false,
  orderable: true,
  documentedExample: 'response',
} as const;

export const stringType: FieldType<StringField> = {
  ...textual,
  column: (s) => ({ type: 'varchar', length: s.maxLength }),
  schema: (s) => ({ type: 'string', minLength: s.allowBlank ? 0 : 1, maxLength: s.maxLength }),
  example: (s, name, n) => (n === 0 ? `Example ${words(name)}` : `${words(name)} ${n}-${suffix()}`).slice(0, s.maxLength),
};

export const textType: FieldType<TextField> = {
  ...textual,
  orderable: false,
  column: () => ({ type: 'text' }),
  schema: (s) => ({ type: 'string', minLength: s.allowBlank ? 0 : 1, maxLength: s.maxLength }),
  example: (_s, name, n) => (n === 0 ? `Example ${words(name)}.` : `Example ${words(name)} ${n}.`),
};

export const emailType: FieldType<EmailField> = {
  ...textual,
  column: (s) => ({ type: 'varchar', length: s.maxLength }),
  schema: (s) => ({ type: 'string', minLength: 1, maxLength: s.maxLength, format: 'email' }),
  example: (_s, _name, n) => (n === 0 ? 'anna.keller@example.com' : `person${n}-${suffix()}@example.com`),
};

/**
 * A web address: `http` or `https` (any case) and a host, then anything RFC 3986 allows. The `uri`
 * format alone takes any scheme (`javascript:`, `data:`) and an empty host (`http://`,
 * `http:///x`, `http://a@/x`): the pattern adds what a link and a webhook delivery need, and shows
 * it in the schema. A failing pattern answers the format's message, `Enter a valid URL.`.
 */
export const webUrlSchema = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, format: 'uri', pattern: WEB_URL_PATTERN });
// the authority whole (optional userinfo, then a host that is not empty), so `a@` cannot pass for a host
export const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://([^/?#@]*@)?[^/?#@:][^/?#@]*([/?#]|$)';

export const urlType: FieldType<UrlField> = {
  ...textual,
  column: (s) => ({ type: 'varchar', length: s.maxLength }),
  schema: (s) => webUrlSchema(s.maxLength),
  example: (_s, name, n) => `https://example.com/${name}/${n}`,
};

const COLOR_BASES = [
  'red', 'pink', 'purple', 'deep-purple', 'indigo', 'blue', 'light-blue', 'cyan', 'teal', 'green', 'light-green',
  'lime', 'yellow', 'amber', 'orange', 'deep-orange', 'brown', 'grey', 'blue-grey', 'black', 'white',
] as const;
export const COLOR_PATTERN = `^(${COLOR_BASES.join('|')})( (lighten-[1-5]|darken-[1-4]|accent-[1-4]))?$`;
const COLORS = ['blue lighten-2', 'green', 'red darken-1', 'orange'];

export const colorType: FieldType<ColorField> = {
  ...textual,
  documentedExample: 'request',
  column: () => ({ type: 'varchar', length: 50 }),
  schema: () => ({ type: 'string', pattern: COLOR_PATTERN }),
  example: (_s, _name, n) => COLORS[n % COLORS.length],
  message: (keyword, value) =>
    keyword === 'pattern'
      ? `"${String(value)}" is not a valid colour: use a base name such as "blue", optionally followed by one space and a modifier (lighten-1…5, darken-1…4, accent-1…4).`
      : undefined,
};

/** Write-only: stored as a scrypt hash, never served, never filtered or ordered. */
export const passwordType: FieldType<PasswordField> = {
  lookups: [],
  defaultLookups: whenFiltered([]),
  filterValue: () => ok(undefined),
  filterSchema: () => ({ type: 'string' }),
  column: () => ({ type: 'varchar', length: 255 }),
  read: () => null,
  schema: (s) => ({ type: 'string', minLength: s.minLength, maxLength: 128 }),
  store: (_s, value) => hashPassword(value as string),
  example: () => `example-password-${suffix()}`,
  compare: () => '',
  filteredByDefault: false,
  orderable: false,
  documentedExample: 'never',
};
