/**
 * The OpenAPI document is true of the running service (CONTRACT 11), driven by the served
 * document itself, so every resource declared later is covered: each operation gets a request
 * built from its documented schemas, and the answer's status, headers, content type and body must
 * match what the document says. Then the error claims: `{}` to every create names exactly the
 * documented required fields, and the documented 401, 403 and 404 answers are the real ones.
 */
import { expect } from 'chai';
import type { Document, Schema } from '../engine/openapi/types.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Client, Reply } from './support/client.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { ResponseValidator } from './support/openapi-ajv.js';
import { isSecured, operations, requestSchemaOf, resolve, servedDocument, type DocumentedOperation } from './support/openapi-document.js';
import { referencesOf, sampleValue, SchemaSamples } from './support/openapi-samples.js';
import { inPool } from './support/pool.js';

const registry = await loadRegistry();

/** Bytes sent as they are, with their headers, instead of JSON. */
class BinaryBody {
  constructor(
    readonly bytes: Buffer,
    readonly headers: Record<string, string>,
  ) {}
}
const MISSING_ID = 2147483647;

const successOf = (o: DocumentedOperation): string => Object.keys(o.op.responses).find((s) => /^[23]\d\d$/.test(s))!;
/** Path parameters by name: `{id}`, `{version}`, and those an earlier answer's documented `links` gave; any other takes `id`. */
const urlOf = (o: DocumentedOperation, id: number | string, query = '', version: number | string = id, linked: Record<string, unknown> = {}) =>
  o.path.replace(/\{(\w+)\}/g, (_, name: string) => String(name === 'version' ? version : name === 'id' ? id : (linked[name] ?? id))) + query;
/** Whether a documented media type (a range such as `*\/*` or `image/*` too) covers `type`. */
const covers = (range: string, type: string) => range === type || range === '*/*' || (range.endsWith('/*') && type.startsWith(range.slice(0, -1)));
/** The bytes a binary request body carries: plain text, which claims no signature. */
const FILE_BYTES = Buffer.from('A file sent by the OpenAPI truth test.\n');

describe('the OpenAPI document is true of the running service', function () {
  this.timeout(120_000);
  let doc: Document;
  let check: ResponseValidator;
  let superuser: TestUser;
  let samples: SchemaSamples;

  before(async () => {
    doc = await servedDocument();
    check = new ResponseValidator(doc);
    superuser = await makeUser({ superuser: true });
    samples = new SchemaSamples(doc, superuser.client, referencesOf(registry));
  });

  /** Sends a request for the operation, with the given credentials (none for public operations); a binary body as `binaryBody` builds it. */
  function send(o: DocumentedOperation, client: Client, url: string, body?: unknown): Promise<Reply> {
    const as = isSecured(doc, o.op) ? client : client.as(null);
    return as.request(o.method.toUpperCase(), url, body === undefined ? {} : body instanceof BinaryBody ? { raw: body.bytes, headers: body.headers } : { body });
  }

  /**
   * A binary request body (a file upload) built from the document: the bytes under the first
   * documented raw media type (a range sent as `application/octet-stream`), named in the
   * documented `Content-Disposition` header parameter.
   */
  function binaryBody(o: DocumentedOperation): BinaryBody | undefined {
    const types = Object.keys(o.op.requestBody?.content ?? {}).filter((t) => t !== 'application/json' && t !== 'multipart/form-data');
    if (!types.length) return undefined;
    const type = types[0]!.includes('*') ? 'application/octet-stream' : types[0]!;
    const named = (o.op.parameters ?? []).some((p) => resolve(doc, p).name === 'Content-Disposition');
    return new BinaryBody(FILE_BYTES, { 'Content-Type': type, ...(named ? { 'Content-Disposition': `attachment; filename="${unique('truth')}.txt"` } : {}) });
  }

  /** The path parameters the documented `links` of the answer give, by name. */
  function linksOf(o: DocumentedOperation, res: Reply): Record<string, unknown> {
    const documented = o.op.responses[String(res.status)];
    const links = (documented && resolve(doc, documented).links) ?? {};
    const values: Record<string, unknown> = {};
    for (const link of Object.values(links)) {
      for (const [name, expression] of Object.entries(link.parameters)) {
        const pointer = /^\$response\.body#\/(\w+)$/.exec(expression);
        if (pointer) values[name] = (res.body as Record<string, unknown>)[pointer[1]!];
      }
    }
    return values;
  }

  /** What in the answer contradicts the document (an unexpected status included); empty if nothing. */
  function verify(o: DocumentedOperation, res: Reply, expected?: string): string[] {
    const label = `${o.op.operationId} ${o.method.toUpperCase()} ${o.path} → ${res.status}`;
    if (expected !== undefined && String(res.status) !== expected) return [`${label}, expected ${expected}: ${res.text.slice(0, 300)}`];
    const documented = o.op.responses[String(res.status)];
    if (!documented) return [`${label}: status not documented`];
    const response = resolve(doc, documented);
    const problems: string[] = [];
    for (const [name, documentedHeader] of Object.entries(response.headers ?? {})) {
      const header = resolve(doc, documentedHeader);
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${label}: documented header ${name} missing`);
        continue;
      }
      const typed = header.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      problems.push(...check.errors(header.schema, typed).map((e) => `${label}: header ${name}: ${e}`));
    }
    if (!response.content) return res.text === '' ? problems : [...problems, `${label}: a body where none is documented`];
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
    const media = response.content[type] ?? Object.entries(response.content).find(([range]) => covers(range, type))?.[1];
    if (!media) return [...problems, `${label}: content type "${type}" not documented`];
    if (type !== 'application/json') return problems;
    return [...problems, ...check.errors(resolve<Schema>(doc, media.schema), res.body).map((e) => `${label}: ${e}`)];
  }

  /**
   * Every documented query parameter at once, each with a documented-valid value; but `cursor`,
   * whose valid values are only those the service hands out in `Link` headers (which `sendList`
   * follows).
   */
  function listQuery(o: DocumentedOperation): string {
    const params = (o.op.parameters ?? []).map((p) => resolve(doc, p)).filter((p) => p.in === 'query' && p.name !== 'cursor');
    return `?${params.map((p) => `${p.name}=${encodeURIComponent(String(sampleValue(doc, p.schema)))}`).join('&')}`;
  }

  /** A list request checked against the document, and the pages its `Link` header points to. */
  async function sendList(list: DocumentedOperation, query: string): Promise<string[]> {
    const res = await send(list, superuser.client, urlOf(list, '', query));
    const problems = verify(list, res, '200');
    for (const [, url, rel] of (res.headers.get('link') ?? '').matchAll(/<([^>]*)>; rel="(\w+)"/g)) {
      const target = new URL(url!);
      if (target.origin !== new URL(suite().service.url).origin || target.pathname !== list.path) problems.push(`${list.op.operationId}: ${rel} link ${url}`);
      else problems.push(...verify(list, await send(list, superuser.client, target.pathname + target.search), '200'));
    }
    return problems;
  }

  /** A collection path and its item paths, in the order a client would use them; returns the problems. */
  async function exercise(collection: string): Promise<string[]> {
    const problems: string[] = [];
    const ops = operations(doc).filter((o) => belongsTo(collection, o.path));
    const find = (path: string, method: string) => ops.find((o) => o.path === path && o.method === method);
    const item = `${collection}/{id}`;
    const list = find(collection, 'get');
    if (list) problems.push(...(await sendList(list, listQuery(list))));
    const create = find(collection, 'post')!;
    const created = await send(create, superuser.client, collection, await samples.body(collection, requestSchemaOf(doc, create.op)!));
    problems.push(...verify(create, created, '201'));
    if (created.status !== 201) return problems;
    const id = created.body.id as number;
    if (list) problems.push(...verify(list, await send(list, superuser.client, collection), '200'), ...(await sendList(list, '?limit=1')));
    const destroy = find(item, 'delete');
    // a version of the record: the newest its history lists
    const version = ((await superuser.client.get(`${collection}/${id}/history`)).body as { version: number }[])[0]?.version ?? 0;
    // uploads first (what the downloads read), the record's parts removed last
    const order = (x: DocumentedOperation) => (binaryBody(x) ? 0 : x.method === 'delete' ? 2 : 1);
    const linked: Record<string, unknown> = {};
    for (const o of ops.filter((x) => x.path !== collection && x !== destroy).sort((a, b) => order(a) - order(b))) {
      const schema = requestSchemaOf(doc, o.op);
      const body = binaryBody(o) ?? (schema && (await samples.body(collection, schema)));
      const res = await send(o, superuser.client, urlOf(o, id, '', version, linked), body);
      problems.push(...verify(o, res, successOf(o)));
      Object.assign(linked, linksOf(o, res));
    }
    if (destroy) problems.push(...verify(destroy, await send(destroy, superuser.client, urlOf(destroy, id)), '204'));
    return problems;
  }

  /** Paths with a create and an item path: resources, and the API tokens. */
  const collections = () => Object.keys(doc.paths).filter((p) => doc.paths[p]!.post && !doc.paths[p]!.post.deprecated && doc.paths[`${p}/{id}`]);
  const belongsTo = (collection: string, path: string) => path === collection || path.startsWith(`${collection}/{id}`);

  it('answers every operation of every collection as documented, with bodies built from the documented schemas', async () => {
    const problems: string[] = [];
    await inPool(collections(), 8, async (c) => {
      try {
        problems.push(...(await exercise(c)));
      } catch (err) {
        problems.push(`${c}: ${(err as Error).message}`);
      }
    });
    expect(problems.join("\n")).to.equal("");
  });

  it('answers every other operation as documented: sign-in, session, batches, schema and docs', async () => {
    const rest = operations(doc).filter((o) => !o.op.deprecated && !collections().some((c) => belongsTo(c, o.path)));
    expect(rest.map((o) => o.op.operationId)).to.include.members(['auth_login', 'auth_me', 'schema_retrieve', ...registry.batches.map((b) => b.operationId)]);
    const credentials = { username: superuser.username, password: 'correct-horse-1' };
    const problems: string[] = [];
    // a read-only collection's item (the audit trail, the delivery log) is asked for with the id of its newest record
    await created(superuser.client, '/api/webhook/subscription', { url: 'https://hooks.example.com/truth', events: ['users.customgroup.created'], secret: 'sixteen-or-more-chars' });
    await created(superuser.client, '/api/customgroup', { name: unique('truth'), permissions: [] });
    // imports take a sheet: a header alone imports nothing; a file over IMPORT_SYNC_MAX_BYTES (a dry run) queues the job /api/jobs/imports/{id} reads
    const sheet = { raw: 'remote_key\r\n', headers: { 'Content-Type': 'text/csv' } };
    const queued = await superuser.client.post('/api/issue/issue/import?dry_run=true', undefined, { ...sheet, raw: `title\r\n${'x\r\n'.repeat(400_000)}` });
    expect(queued.status, queued.text).to.equal(202);
    for (const o of rest) {
      const schema = requestSchemaOf(doc, o.op);
      const body = o.op.operationId === 'auth_login' ? credentials : schema && (await samples.body(o.path, schema));
      // an item (or its action, as a trash entry's restore) of the newest record
      const newest =
        o.path === '/api/jobs/imports/{id}' ? (queued.body as { id: number }) : o.path.includes('/{id}') ? ((await superuser.client.get(`${o.path.slice(0, o.path.indexOf('/{id}'))}?limit=1`)).body as { id: number }[])[0] : undefined;
      const url = newest ? urlOf(o, newest.id) : o.path;
      const res = o.op.requestBody?.content['text/csv'] ? await superuser.client.request(o.method.toUpperCase(), url, sheet) : await send(o, superuser.client, url, body);
      problems.push(...verify(o, res, successOf(o)));
    }
    // this service runs no jobs; a later instance that does would spend minutes on the 400,000 rows
    await suite().service.db('import_jobs').where({ id: (queued.body as { id: number }).id }).delete();
    expect(problems.join("\n")).to.equal("");
  });

  it('answers every deprecated operation with the documented 301 to its successor, without credentials', async () => {
    const byId = new Map(operations(doc).map((o) => [o.op.operationId, o]));
    const problems: string[] = [];
    for (const o of operations(doc).filter((x) => x.op.deprecated)) {
      const successor = byId.get(o.op.operationId.replace(/_deprecated$/, ''))!;
      const res = await send(o, superuser.client, urlOf(o, 7, '?x=1'));
      problems.push(...verify(o, res, '301'));
      if (res.headers.get('location') !== urlOf(successor, 7, '?x=1')) problems.push(`${o.op.operationId}: Location ${res.headers.get('location')}`);
    }
    expect(problems.join("\n")).to.equal("");
  });

  it('answers {} to every create with 400 naming exactly the documented required fields', async () => {
    const problems: string[] = [];
    await inPool(collections(), 8, async (c) => {
      const create = operations(doc).find((o) => o.path === c && o.method === 'post')!;
      const required = ((requestSchemaOf(doc, create.op)!.required ?? []) as string[]).slice().sort();
      const res = await send(create, superuser.client, c, {});
      problems.push(...verify(create, res, required.length ? '400' : '201'));
      if (required.length && res.status === 400 && JSON.stringify(Object.keys(res.body).sort()) !== JSON.stringify(required)) {
        problems.push(`${create.op.operationId}: 400 names ${Object.keys(res.body).sort().join(', ')}; documented required: ${required.join(', ')}`);
      }
    });
    expect(problems.join("\n")).to.equal("");
  });

  it('answers the documented 401 to every secured operation without credentials', async () => {
    const problems: string[] = [];
    const secured = operations(doc).filter((o) => isSecured(doc, o.op));
    await inPool(secured, 16, async (o) => {
      const res = await suite().admin.as(null).request(o.method.toUpperCase(), urlOf(o, 1), o.op.requestBody ? { body: {} } : {});
      problems.push(...verify(o, res, '401'));
    });
    expect(problems.join("\n")).to.equal("");
  });

  it('answers the documented 403 where the documented permission is missing, and lets a holder of every view permission view', async () => {
    const guarded = operations(doc).filter((o) => o.op['x-required-permission']);
    const views = [...new Set(guarded.map((o) => o.op['x-required-permission']!).filter((p) => /\.view_/.test(p)))];
    const [nobody, viewer] = await Promise.all([makeUser(), makeUser({ permissions: views })]);
    const problems: string[] = [];
    await inPool(guarded, 16, async (o) => {
      const options = o.op.requestBody ? { body: {} } : {};
      problems.push(...verify(o, await nobody.client.request(o.method.toUpperCase(), urlOf(o, MISSING_ID), options), '403'));
      const viewing = o.op['x-required-permission']!.includes('.view_');
      const res = await viewer.client.request(o.method.toUpperCase(), urlOf(o, MISSING_ID), options);
      problems.push(...verify(o, res, viewing ? (o.path.includes('{id}') ? '404' : '200') : '403'));
    });
    expect(problems.join("\n")).to.equal("");
  });

  it('answers the documented 404 to every operation on a record that does not exist', async () => {
    const problems: string[] = [];
    const onRecords = operations(doc).filter((o) => o.path.includes('{id}') && !o.op.deprecated);
    await inPool(onRecords, 16, async (o) => {
      problems.push(...verify(o, await send(o, superuser.client, urlOf(o, MISSING_ID), o.op.requestBody ? {} : undefined), '404'));
    });
    expect(problems.join("\n")).to.equal("");
  });

  for (const collection of ['/api/issue/issue', '/api/issue/tracker']) {
    it(`enforces the state machine documented for ${collection}: x-initial-states on create, x-transitions on every move`, async () => {
      const create = operations(doc).find((o) => o.path === collection && o.method === 'post')!;
      const schema = requestSchemaOf(doc, create.op)!;
      const [field, property] = Object.entries(schema.properties as Record<string, Schema>).find(([, p]) => p['x-transitions'])!;
      const transitions = property['x-transitions'] as Record<string, string[]>;
      const initial = property['x-initial-states'] as string[];
      // a fresh body each time: unique values (remote_key) must not repeat
      const body = async (state: string) => ({ ...(await samples.body(collection, schema)), [field]: state });
      const problems: string[] = [];
      const expectStatus = (what: string, res: Reply, ok: boolean) => {
        if (res.status !== (ok ? (what.startsWith('create') ? 201 : 200) : 400)) problems.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
      };
      for (const state of Object.keys(transitions)) expectStatus(`create in ${state}`, await superuser.client.post(collection, await body(state)), initial.includes(state));

      // the documented route to each state, from a documented initial state
      const routes = new Map(initial.map((s) => [s, [s]]));
      for (const [from] of routes) for (const to of transitions[from]!) if (!routes.has(to)) routes.set(to, [...routes.get(from)!, to]);
      const recordIn = async (state: string): Promise<number> => {
        const [first, ...steps] = routes.get(state)!;
        const id = (await superuser.client.post(collection, await body(first!))).body.id as number;
        for (const step of steps) expectStatus(`route to ${state}: ${step}`, await superuser.client.patch(`${collection}/${id}`, { [field]: step }), true);
        return id;
      };
      expect([...routes.keys()].sort()).to.deep.equal(Object.keys(transitions).sort());
      for (const from of Object.keys(transitions)) {
        let id = await recordIn(from);
        for (const to of Object.keys(transitions).filter((s) => s !== from)) {
          const allowed = transitions[from]!.includes(to);
          const res = await superuser.client.patch(`${collection}/${id}`, { [field]: to });
          expectStatus(`${from} → ${to}`, res, allowed);
          if (!allowed && JSON.stringify(res.body) !== JSON.stringify({ [field]: [`Transition from "${from}" to "${to}" is not allowed.`] })) problems.push(`${from} → ${to}: ${res.text}`);
          if (allowed) id = await recordIn(from);
        }
      }
      expect(problems.join("\n")).to.equal("");
    });
  }

  it('gives examples that are valid for their own schemas', () => {
    const problems: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const [property, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        if ('example' in s) problems.push(...check.errors(s, s.example).map((e) => `${name}.${property}: ${e}`));
      }
    }
    expect(problems.join("\n")).to.equal("");
  });
});
