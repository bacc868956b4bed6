/**
 * Hostile requests for every operation of the served OpenAPI document, as fast-check arbitraries
 * of plans (small, printable, replayable from a seed) that become real requests only when sent.
 *
 * A `refusing` plan has at least one part the operation must refuse (a bad credential, a method
 * the path does not offer, an id that names no record, a body the schema refuses, a media type
 * other than JSON), so the service must answer 4xx and change nothing. An `odd` plan sends odd but
 * possibly valid values (edge numbers and dates, odd Unicode) to the records made for the test, so
 * they reach the database. Both add odd query strings and headers, `Host` among them.
 */
import fc from 'fast-check';
import type { Document, Parameter, Schema } from '../../engine/openapi/types.js';
import { isSecured, operations, requestSchemaOf, resolve, type DocumentedOperation } from './openapi-document.js';
import type { SchemaSamples } from './openapi-samples.js';
import { deepJson, invalidFor, malformedFor, oddFor, oddText, RawJson, withLoneSurrogate, withNul } from './hostile-values.js';

export type Mode = 'refusing' | 'odd';

type BodyPlan =
  /** The documented sample body (or none), less `drop`, with `set` over it. */
  | { fields: Record<string, unknown>; drop: string[]; base: boolean }
  | { text: string | RawJson }
  | { bytes: readonly number[] };

export interface Plan {
  op: number;
  method: string;
  /** The `{id}` segment as sent; absent: the id of the record made for the test. */
  id?: string;
  slash: boolean;
  query: string;
  /** `own`: the test's token; null: no credentials; else the Authorization header sent. */
  auth: 'own' | string | null;
  headers: Record<string, string>;
  body?: BodyPlan;
  /** Whether the service must refuse it. */
  refusing: boolean;
}

export interface Sendable {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

/** What the plans need from the running test: the records to aim at and the token to send. */
export interface Targets {
  /** The id of a record the test made, by collection path (`/api/auth/tokens`: the test's own token). */
  records: ReadonlyMap<string, number>;
  token: string;
  samples: SchemaSamples;
}

/** `/api/x/{id}/transitions` → `/api/x`: where an operation's records and sample bodies come from. */
export const collectionOf = (path: string): string => path.replace(/\/\{id\}.*$/, '');

/** Percent-encodes the UTF-8 of `text` (lone surrogates become U+FFFD, as any encoder must). */
const encode = (text: string): string =>
  Array.from(Buffer.from(text, 'utf8'), (b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** Spellings of a real id that must not find it, and segments that are no id at all. */
function hostileIds(real: number | undefined): fc.Arbitrary<string> {
  const r = real ?? 1;
  return fc.oneof(
    fc.constantFrom('0', '-1', `${r}.0`, `${r}e0`, `0x${r.toString(16)}`, `%20${r}`, `%2B${r}`, `${r}%20`, `${r}%00`, '%EF%BC%91', '%D9%A1', 'NaN', 'Infinity'),
    fc.constantFrom('2147483647', '2147483648', '99999999999999999999', '-2147483649', 'abc', '%00', '%', '%zz', '%27%20or%201%3D1--', '1%3Bselect%201', '%E2%80%AE1'),
    // odd text may be all digits: a real id of some record, which a refusing plan must not name
    oddText(12).filter((s) => s !== '' && s !== '.' && s !== '..' && !/^\d+$/.test(s)).map(encode),
  );
}

/** Percent-encoded bytes, often not UTF-8 (overlong forms, surrogates, lone continuation bytes). */
const rawBytes = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((a) => Array.from(a, (b) => `%${b.toString(16).padStart(2, '0')}`).join(''));
const junkValues = fc.constantFrom('', '%', '%zz', '%00', '+', '%2B', '-', ',', ',,,', '%C0%80', '%ED%A0%80', '%FF', 'null', 'NaN', '-0', '1e309', '99999999999999999999', '0x10', '[]', '{}', '%27', '%22', '%5C', '*', '%25', '_');
const cursors = fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'x').toString('base64url'));

/** A value for one query parameter: documented-valid, odd, invalid, or junk. */
function queryValue(doc: Document, p: Parameter): fc.Arbitrary<string> {
  const schema = resolve<Schema>(doc, p.schema);
  const items = schema.type === 'array' ? (schema.items as Schema) : undefined;
  const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const values: fc.Arbitrary<string>[] = [junkValues, rawBytes, oddFor(items ?? schema).map((v) => encode(asText(v))), invalidFor(items ?? schema).map((v) => encode(asText(v)).slice(0, 3000))];
  if (items) values.push(fc.array(oddFor(items).map(asText), { maxLength: 6 }).map((a) => a.map(encode).join(',')));
  if (p.name === 'cursor') values.push(cursors);
  return fc.oneof(...values);
}

/** A query string of documented parameters (some repeated), unknown ones and junk. */
function queryOf(doc: Document, o: DocumentedOperation): fc.Arbitrary<string> {
  const params = (o.op.parameters ?? []).map((p) => resolve(doc, p)).filter((p) => p.in === 'query');
  // pages that link their neighbours, so that the links' address meets the odd Host headers
  const paging = params.some((p) => p.name === 'offset') ? [{ weight: 2, arbitrary: fc.constantFrom('limit=1&offset=1', 'offset=1&limit=1&count=true', 'limit=1') }] : [];
  const pair = fc.oneof(
    { weight: 6, arbitrary: params.length ? fc.constantFrom(...params).chain((p) => queryValue(doc, p).map((v) => `${p.name}=${v}`)) : junkValues },
    ...paging,
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('__proto__', 'constructor', 'a[]', 'a[b]', '', '%00', 'limit%00', 'ordering[]', 'x'.repeat(300)), junkValues).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: fc.constantFrom('&', '&&', '=', '==', 'limit', 'ordering', '%', '?') },
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

const hostileAuth = fc.oneof(
  fc.constantFrom('Token', 'Token ', 'Token a b', 'Bearer abc', 'Basic YWRtaW46YWRtaW4=', 'Token\tabc', 'Token ' + 'k'.repeat(4_000), 'Token %00', 'Token null', 'Token undefined', 'Token ÿ'),
  fc.string({ minLength: 1, maxLength: 60 }).map((s) => `Token ${s.replace(/[^\x21-\x7e]/g, 'z')}`),
);

const oddHeaders = fc.dictionary(
  fc.constantFrom('Accept', 'Accept-Charset', 'Accept-Language', 'X-CSRFToken', 'Cookie', 'Origin', 'Range', 'If-None-Match', 'X-Forwarded-For', 'X-Forwarded-Proto', 'X-Request-Id'),
  fc.constantFrom('text/html', '*/*;q=0', 'application/xml', 'application/json; version=9', '', 'ÿ', 'sessionid=garbage; csrftoken=x', 'koa.sess=%%%; koa.sess.sig=x', 'bytes=0-1', '"x"', '1.2.3.4, ::1, nonsense', 'javascript', 'x'.repeat(2_000)),
  { maxKeys: 2 },
);

/** `Host` values a link may name as they are (RFC 3986 host[:port]). */
export const WELL_FORMED_HOSTS = ['api.example.com', 'EXAMPLE.com:8443', '[::1]:8000', '192.0.2.1'];
/** `Host` values no link may name: the service's own address stands in for them. */
export const HOSTILE_HOSTS = ['a"><script>alert(1)</script>', 'x y', 'x/y', 'x?y#z', 'u@', '[zz]', '[::1', 'x:99999', 'x:', 'javascript:alert(1)', 'ex%41mple.com', '<x>', '\\x', '', 'ÿ'];
const hostHeaders = fc.constantFrom(...WELL_FORMED_HOSTS, ...HOSTILE_HOSTS).chain((host) => fc.constantFrom({ Host: host }, { Host: host, 'X-Forwarded-Host': host, 'X-Forwarded-Proto': 'javascript' }));

/** Media types and encodings a JSON write must refuse with 415. */
const wrongMedia = fc.constantFrom(
  { 'Content-Type': 'text/plain' },
  { 'Content-Type': 'application/x-www-form-urlencoded' },
  { 'Content-Type': 'multipart/form-data; boundary=x' },
  { 'Content-Type': 'application/json; charset=utf-16' },
  { 'Content-Type': 'application/json; charset=latin1' },
  { 'Content-Type': 'application/jsonx' },
  { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
);

/** Bodies every JSON write refuses whatever its fields: not JSON, not UTF-8, not an object. */
const malformedBody: fc.Arbitrary<BodyPlan> = fc.oneof(
  fc.constantFrom('{', '{"a":', '{"a" 1}', "{'a':1}", '{"a":1,}', '{"a":1}}', '{"a":01}', '{"a":NaN}', '{"a":undefined}', '\u0000', '{"a":"\\ud800"', '{"a":"\\x41"}', '[', 'nul', '{"a":1}garbage').map((text) => ({ text })),
  // JSON by its grammar, but half a surrogate pair is no text
  fc.constantFrom('{"\\ud800":1}', '{"a":["\\udfff"]}', '{"a":{"b":"x\\udc00\\ud800"}}').map((text) => ({ text })),
  fc.constantFrom('[]', '1', '"x"', 'null', 'true', '[{}]', '1e999', '"{}"').map((text) => ({ text })),
  fc.tuple(fc.constantFrom(1_000, 100_000), fc.boolean()).map(([d, o]) => ({ text: deepJson(d, o) })),
  // (a UTF-8 byte order mark before valid JSON is not here: RFC 8259 lets a parser ignore it, and this one does)
  fc.constantFrom([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d], [0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d], [0x7b, 0x22, 0xc0, 0x80, 0x22, 0x3a, 0x31, 0x7d]).map((bytes) => ({ bytes })),
);

/** Property names a body must refuse: unknown, prototype members, odd text. */
const unknownNames = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nonexistent', '', ' id', 'id ', 'ID'), oddText(20), withLoneSurrogate);

/** The body of a write, refused by its schema when `refusing`, odd otherwise. */
function bodyOf(schema: Schema, mode: Mode, isCreate: boolean): fc.Arbitrary<BodyPlan> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(([, p]) => !p.readOnly);
  const required = (schema.required ?? []) as string[];
  const fieldsWith = (value: (p: Schema) => fc.Arbitrary<unknown>, min: number) =>
    properties.length === 0
      ? fc.constant({})
      : fc.uniqueArray(fc.constantFrom(...properties), { minLength: min, maxLength: Math.min(3, properties.length), selector: ([name]) => name }).chain((picked) =>
          fc.tuple(...picked.map(([name, p]) => value(p).map((v) => [name, v] as const))).map((pairs) => Object.fromEntries(pairs)),
        );
  const odd = fieldsWith(oddFor, 0);
  if (mode === 'odd') return odd.map((set) => ({ fields: set, drop: [], base: true }));
  const refusing: fc.Arbitrary<BodyPlan>[] = [
    fc.tuple(fieldsWith(invalidFor, 1), odd).map(([bad, set]) => ({ fields: { ...set, ...bad }, drop: [], base: true })),
    fc.tuple(unknownNames, fc.jsonValue({ maxDepth: 1 }), odd).map(([name, v, set]) => ({ fields: { ...set, [name]: v }, drop: [], base: true })),
    malformedBody,
  ];
  // one string refused for its text alone (its format, a NUL, half a surrogate pair) among values that may pass: a wrong value beside it would hide whether that is checked
  const oneRefused = (candidates: [string, Schema][], value: (p: Schema) => fc.Arbitrary<unknown>) =>
    fc.tuple(fc.constantFrom(...candidates), odd).chain(([[name, p], set]) => value(p).map((v) => ({ fields: { ...set, [name]: v }, drop: [], base: true })));
  const formatted = properties.filter(([, p]) => malformedFor(p));
  if (formatted.length) refusing.push(oneRefused(formatted, (p) => malformedFor(p)!));
  const strings = properties.filter(([, p]) => p.type === 'string');
  if (strings.length) refusing.push(oneRefused(strings, () => fc.oneof(withNul, withLoneSurrogate)));
  if (isCreate && required.length) {
    refusing.push(fc.tuple(fc.subarray(required, { minLength: 1 }), odd).map(([drop, set]) => ({ fields: Object.fromEntries(Object.entries(set).filter(([k]) => !drop.includes(k))), drop, base: true })));
  }
  return fc.oneof(...refusing);
}

// methods Node's HTTP parser knows (it refuses others before the service sees them)
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'PURGE'];

/** Plans for operation `index` of `ops` in `mode`. */
function planFor(doc: Document, ops: DocumentedOperation[], index: number, mode: Mode, targets: Targets): fc.Arbitrary<Plan> {
  const o = ops[index]!;
  const secured = isSecured(doc, o.op);
  const schema = requestSchemaOf(doc, o.op);
  const hasId = o.path.includes('{id}');
  const offered = new Set(Object.keys(doc.paths[o.path]!).map((m) => m.toUpperCase()));
  const real = targets.records.get(collectionOf(o.path));
  const writes = o.method !== 'get';
  // a refusing plan needs one reason to be refused; a read cannot change anything, so it may have none
  const reasons = [...(secured ? ['auth'] : []), 'method', ...(hasId ? ['id'] : []), ...(schema ? ['body'] : []), ...(writes ? [] : ['none'])];
  // a delete aims at no record of the test's, and no plan at the test's own token
  const mustMissId = hasId && (o.method === 'delete' || o.path.startsWith('/api/auth/tokens') || real === undefined);
  return fc.constantFrom(...reasons).chain((reason) => {
    const refusing = mode === 'refusing' && reason !== 'none';
    const idArb: fc.Arbitrary<string | undefined> = !hasId ? fc.constant(undefined) : refusing && reason === 'id' || mustMissId ? hostileIds(real) : fc.constant(undefined);
    const authArb: fc.Arbitrary<'own' | string | null> = refusing && reason === 'auth' ? fc.oneof(hostileAuth, fc.constant(null)) : fc.constant('own');
    const methodArb = refusing && reason === 'method' ? fc.constantFrom(...OTHER_METHODS.filter((m) => !offered.has(m))) : fc.constant(o.method.toUpperCase());
    const bodyArb: fc.Arbitrary<BodyPlan | undefined> = !schema
      ? fc.option(malformedBody, { nil: undefined, freq: 4 })
      : refusing && reason === 'body'
        ? bodyOf(schema, 'refusing', o.method === 'post' || o.method === 'put')
        : bodyOf(schema, 'odd', false);
    const mediaArb = refusing && reason === 'body' && schema ? fc.option(wrongMedia, { nil: undefined, freq: 5 }) : fc.constant(undefined);
    return fc.record({
      op: fc.constant(index),
      method: methodArb,
      id: idArb,
      slash: fc.boolean(),
      query: queryOf(doc, o),
      auth: authArb,
      headers: fc.tuple(oddHeaders, fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostHeaders }), mediaArb).map(([h, host, m]) => ({ ...h, ...host, ...m })),
      body: bodyArb,
      refusing: fc.constant(refusing || mustMissId || Boolean(o.op.deprecated)),
    });
  });
}

/** The operations that answer in the contract's error shapes: `/mcp` speaks JSON-RPC, whose errors have their own (test/mcp.test.ts). */
export const contractOperations = (doc: Document): DocumentedOperation[] => operations(doc).filter((o) => !o.op.tags?.includes('mcp'));

/** One arbitrary of plans over every documented operation, each equally likely. */
export function plans(doc: Document, mode: Mode, targets: Targets): fc.Arbitrary<Plan> {
  const ops = contractOperations(doc);
  return fc.integer({ min: 0, max: ops.length - 1 }).chain((i) => planFor(doc, ops, i, mode, targets));
}

/** JSON text of `value`, with `RawJson` parts put in as they are. */
function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** The request a plan stands for (a sample body may create the records it names, once). */
export async function materialise(doc: Document, plan: Plan, targets: Targets): Promise<Sendable> {
  const o = contractOperations(doc)[plan.op]!;
  const id = plan.id ?? String(targets.records.get(collectionOf(o.path)) ?? 1);
  const url = `${o.path.replace('{id}', id)}${plan.slash ? '/' : ''}${plan.query ? `?${plan.query}` : ''}`;
  const headers: Record<string, string> = { ...plan.headers };
  if (plan.auth === 'own') headers.Authorization = `Token ${targets.token}`;
  else if (plan.auth !== null) headers.Authorization = plan.auth;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (plan.body && 'bytes' in plan.body) body = Uint8Array.from(plan.body.bytes);
  else if (plan.body && 'text' in plan.body) body = plan.body.text instanceof RawJson ? plan.body.text.text : plan.body.text;
  else if (plan.body) {
    const schema = requestSchemaOf(doc, o.op);
    const base = plan.body.base && schema ? await targets.samples.body(collectionOf(o.path), schema) : {};
    for (const name of plan.body.drop) delete base[name];
    body = jsonText({ ...base, ...plan.body.fields });
  }
  // fetch sends no body with GET; a documented read has none to refuse anyway
  if (plan.method === 'GET') body = undefined;
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  return { method: plan.method, url, headers, body };
}
