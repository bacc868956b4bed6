/**
 * fast-check arbitraries for the values of hostile requests, made from documented JSON schemas:
 * values a schema surely refuses (wrong JSON type, past a bound, outside an enum, malformed
 * formats, URLs of other schemes or without a host, NUL, half a surrogate pair) and odd values it
 * may well accept (edge numbers and dates, odd Unicode), so that they reach the database.
 */
import fc from 'fast-check';
import type { Schema } from '../../engine/openapi/types.js';

/** JSON text put into a body as it is: numbers JSON.stringify cannot write, nesting too deep to build as objects. */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text.length > 80 ? `RawJson(${this.text.slice(0, 40)}…${this.text.length} chars)` : `RawJson(${this.text})`;
  }
}

/** JSON nested `depth` deep: arrays or objects, past any recursion a parser or validator may do. */
export const deepJson = (depth: number, object: boolean): RawJson =>
  new RawJson(object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`);

const deep = fc.tuple(fc.constantFrom(64, 1_000, 20_000), fc.boolean()).map(([d, o]) => deepJson(d, o));
/** Number literals past what a double or an integer column holds. */
const hugeNumbers = fc.constantFrom(new RawJson('1e999'), new RawJson('-1e999'), new RawJson('123456789012345678901234567890'));

/** Text nobody types: every plane, controls, bidi overrides, combining marks, zero-width joiners (half a surrogate pair is no text: `withLoneSurrogate`). */
export const oddText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: Math.min(maxLength, 64) }),
    fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 16) }),
    fc
      .array(fc.constantFrom('\u202e', '\u200d', '\u0301', '\ufeff', '😀', 'ß', 'İ', '\u0085', '\u2028', '\t', '\\', '"', "'", '%', '_', '*'), {
        minLength: 1,
        maxLength: Math.min(maxLength, 32),
      })
      .map((a) => a.join('')),
  );

/** Text with a NUL: PostgreSQL cannot store it, so every string field must refuse it. */
export const withNul = fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`);
/** Text with half a surrogate pair (JSON.stringify escapes it, `"\ud800"`): no Unicode text, so every body must refuse it. */
export const withLoneSurrogate = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ude00\ud83d'), fc.string({ maxLength: 8 }))
  .map(([a, half, b]) => `${a}${half}${b}`);

/** Non-empty wrong types for a value whose documented JSON type is `type`. */
function wrongTypes(type: unknown): fc.Arbitrary<unknown>[] {
  const all: Record<string, fc.Arbitrary<unknown>> = {
    object: fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 3 }),
    array: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    string: fc.string({ maxLength: 8 }),
    number: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
    boolean: fc.boolean(),
  };
  const own = type === 'integer' ? 'number' : type;
  return Object.entries(all)
    .filter(([name]) => name !== own)
    .map(([, arb]) => arb);
}

const MALFORMED: Record<string, string[]> = {
  date: ['2024-02-30', '2023-13-01', '24-01-01', '2024-1-1', 'yesterday', '0000-00-00', '2024-01-01T00:00:00Z'],
  'date-time': ['2024-02-30T00:00:00Z', 'now', '2024-01-01 25:00', '1e10'],
  email: ['no-at-sign', '@example.com', 'a@', 'a b@example.com'],
  // a URL is http or https with a host
  uri: ['not a uri', '://x', 'http://', 'HTTPS://', 'http:///x', 'http://a@/x', 'javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'vbscript:msgbox(1)', 'data:text/html,<script>alert(1)</script>', 'mailto:a@b', 'urn:x:y'],
  uuid: ['not-a-uuid', '00000000-0000-0000-0000-00000000000g'],
  decimal: ['abc', '1.2.3', '1e5', '', ' 1', '0x10', 'NaN', 'Infinity', '1'.repeat(40)],
  'time-of-day': ['24:00', '23:60', '7pm', '12:00:00.1234567'],
};

/** Strings of the right type that `schema`'s format alone refuses; undefined where it has none of these formats. */
export function malformedFor(schema: Schema): fc.Arbitrary<string> | undefined {
  const bad = schema.type === 'string' ? MALFORMED[schema.format as string] : undefined;
  return bad && fc.constantFrom(...bad);
}

/** Values `schema` surely refuses (`null` only where it is not nullable). */
export function invalidFor(schema: Schema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [...wrongTypes(schema.type), deep, hugeNumbers];
  if (!schema.nullable) options.push(fc.constant(null));
  if (schema.type === 'string') {
    options.push(withNul, withLoneSurrogate);
    const max = schema.maxLength as number | undefined;
    if (max !== undefined) options.push(fc.constant('y'.repeat(max + 1)));
    if (((schema.minLength as number | undefined) ?? 0) > 0) options.push(fc.constant(''));
    if (Array.isArray(schema.enum)) options.push(oddText(40).filter((s) => !(schema.enum as unknown[]).includes(s)));
    const bad = malformedFor(schema);
    if (bad) options.push(bad);
  }
  if (schema.type === 'integer') {
    const beyond = [1.5, -0.5];
    if (typeof schema.minimum === 'number') beyond.push(schema.minimum - 1, -(2 ** 63));
    if (typeof schema.maximum === 'number') beyond.push(schema.maximum + 1, 2 ** 53, 1e300);
    options.push(fc.constantFrom(...beyond));
    // no record has the largest id
    if (schema['x-references']) options.push(fc.constant(2147483647));
  }
  if (schema.type === 'array') {
    const items = schema.items as Schema | undefined;
    if (items) options.push(fc.array(invalidFor(items), { minLength: 1, maxLength: 3 }));
    const maxItems = schema.maxItems as number | undefined;
    if (maxItems !== undefined) options.push(fc.constant(Array.from({ length: maxItems + 1 }, (_, i) => i + 1)));
  }
  return fc.oneof(...options);
}

const ODD_FORMATS: Record<string, string[]> = {
  date: ['0001-01-01', '9999-12-31', '2000-02-29', '1970-01-01', '2038-01-19', '1582-10-10'],
  'date-time': ['1970-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2024-12-31T23:59:60Z', '2024-06-01T12:00:00+14:00', '2024-06-01T12:00:00.123456789-12:00'],
  email: ['a@b', 'ü@例え.jp', '"quoted"@example.com', 'x+y@example.com', `${'a'.repeat(64)}@example.com`],
  uri: ['http://ü.example/%', 'HTTP://EXAMPLE.COM', 'https://user:pw@example.com:65535/a?b=%00#c', 'http://[::1]:0/', 'http://192.0.2.1/'],
  uuid: ['00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'],
  decimal: ['0', '-0', '0.0', '-0.00', '00001', '1', '-1', '0.01'],
  'time-of-day': ['00:00', '23:59:59', '23:59:59.999999', '12:00:00.1'],
};

/** Odd values `schema` may well accept: its bounds, odd text within its length, edge dates. */
export function oddFor(schema: Schema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  if (schema.nullable) options.push(fc.constant(null));
  if (Array.isArray(schema.enum)) options.push(fc.constantFrom(...(schema.enum as unknown[])));
  else if (schema.type === 'string') {
    const formats = ODD_FORMATS[schema.format as string];
    if (formats) options.push(fc.constantFrom(...formats));
    else {
      const max = (schema.maxLength as number | undefined) ?? 1_000;
      const min = (schema.minLength as number | undefined) ?? 0;
      options.push(oddText(max).filter((s) => [...s].length >= min), fc.constant('😀'.repeat(max)), fc.constant('x'.repeat(max)));
    }
  } else if (schema.type === 'integer') {
    const min = (schema.minimum as number | undefined) ?? -2147483648;
    const max = (schema.maximum as number | undefined) ?? 2147483647;
    options.push(fc.constantFrom(min, max, Math.max(min, Math.min(max, 0)), Math.max(min, Math.min(max, 1))), fc.integer({ min, max }));
  } else if (schema.type === 'boolean') options.push(fc.boolean());
  else if (schema.type === 'array') {
    const items = schema.items as Schema | undefined;
    options.push(fc.constant([]), ...(items ? [fc.array(oddFor(items), { maxLength: 5 })] : []));
  } else if (schema.type === 'object') options.push(fc.dictionary(oddText(20), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }));
  return options.length ? fc.oneof(...options) : fc.jsonValue({ maxDepth: 2 });
}
