/**
 * The served OpenAPI document (spec 4.5, CONTRACT 11): valid by an OpenAPI 3.0 validator and by
 * `redocly lint` with its recommended rules, served as JSON or YAML by negotiation, and complete:
 * every declared resource, filter, field, batch action and deprecated path is in it, described.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import type { Document, Parameter, Schema } from '../engine/openapi/types.js';
import { schemaNames } from '../engine/openapi/resource-schemas.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';
import { operations, requestSchemaOf, resolve, servedDocument } from './support/openapi-document.js';

const registry = await loadRegistry();
const redoclyCli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

/** JSON Pointer of an operation's responses, as redocly reports it. */
const responsesPointer = (p: string, method: string) => `#/paths/${p.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses`;

describe('OpenAPI document', () => {
  let doc: Document;
  before(async () => {
    doc = await servedDocument();
  });

  describe('validity', () => {
    it('is a valid OpenAPI 3.0.3 document (@seriousme/openapi-schema-validator)', async () => {
      const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
      expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
      expect(doc.openapi).to.equal('3.0.3');
    });

    it('passes redocly lint with the recommended rules: no errors, no warnings', async function () {
      this.timeout(60_000);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-openapi-lint-'));
      try {
        fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
        // an internal service's API has no licence to name
        fs.writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\nrules:\n  info-license: off\n');
        // Deprecated paths only ever answer 301 (no 2xx, no 4xx); the schema and docs are public and
        // always answer 200 (no 4xx). Exactly those operations are exempt from the two rules.
        const deprecated = operations(doc).filter((o) => o.op.deprecated).map((o) => responsesPointer(o.path, o.method));
        const docs = operations(doc).filter((o) => o.op.tags.includes('schema')).map((o) => responsesPointer(o.path, o.method));
        const ignore = { 'openapi.json': { 'operation-2xx-response': deprecated, 'operation-4xx-response': [...deprecated, ...docs] } };
        fs.writeFileSync(path.join(dir, '.redocly.lint-ignore.yaml'), JSON.stringify(ignore));
        const { stdout } = await promisify(execFile)(process.execPath, [redoclyCli, 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'], {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 64 * 1024 * 1024,
        });
        const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
        const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
        expect(problems).to.deep.equal([]);
        expect(report.totals).to.deep.equal({ errors: 0, warnings: 0, ignored: deprecated.length * 2 + docs.length });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('content negotiation, without credentials', () => {
    const get = (url: string, headers: Record<string, string> = {}) => suite().admin.get(url, { token: null, headers });

    it('answers JSON for Accept: application/json and for ?format=json, YAML otherwise', async () => {
      const json = await get('/api/schema/', { Accept: 'application/json' });
      expect(json.status).to.equal(200);
      expect(json.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(json.body).to.deep.equal(doc);

      const forced = await get('/api/schema?format=json', { Accept: 'application/yaml' });
      expect(forced.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(JSON.parse(forced.text)).to.deep.equal(doc);

      const yaml = await get('/api/schema/');
      expect(yaml.headers.get('content-type')).to.equal('application/yaml; charset=utf-8');
      expect(parseYaml(yaml.text)).to.deep.equal(doc);
      for (const [accept, type] of [
        ['*/*', 'application/yaml'],
        ['application/yaml', 'application/yaml'],
        ['application/vnd.oai.openapi', 'application/vnd.oai.openapi'],
        ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/yaml'],
      ] as const) {
        const res = await get('/api/schema', { Accept: accept });
        expect(res.status, accept).to.equal(200);
        expect(res.headers.get('content-type'), accept).to.equal(`${type}; charset=utf-8`);
        expect(res.text === yaml.text, accept).to.equal(true);
      }
      expect((await get('/api/schema?format=yaml', { Accept: 'application/json' })).headers.get('content-type')).to.equal('application/yaml; charset=utf-8');
    });
  });

  describe('completeness', () => {
    const op = (id: string) => {
      const found = operations(doc).find((o) => o.op.operationId === id);
      if (!found) throw new Error(`no operation ${id}`);
      return found;
    };
    const schema = (name: string) => doc.components.schemas[name]!;
    const props = (s: Schema) => s.properties as Record<string, Schema>;
    const readOf = (key: string) => {
      const r = registry.get(key);
      const list = op(`${r.operationPrefix}_list`).op.responses['200'];
      const items = resolve(doc, list!).content!['application/json']!.schema as Schema;
      return resolve<Schema>(doc, items.items as Schema);
    };

    it('has the title, version, security schemes and public operations the contract names', () => {
      expect(doc.info.title).to.equal('Business Management Service API');
      expect(doc.info.version).to.equal('1.0.0');
      expect(doc.info.description).to.be.a('string').and.not.empty;
      const { tokenAuth, cookieAuth } = doc.components.securitySchemes;
      expect(tokenAuth).to.include({ type: 'apiKey', in: 'header', name: 'Authorization' });
      expect(tokenAuth!.description).to.include('Token <key>');
      expect(cookieAuth).to.include({ type: 'apiKey', in: 'cookie', name: 'sessionid' });
      expect(doc.security).to.deep.equal([{ tokenAuth: [] }, { cookieAuth: [] }]);
      for (const id of ['auth_login', 'schema_retrieve', 'schema_swagger_ui']) expect(op(id).op.security, id).to.deep.equal([]);
      expect(op('auth_me').op.security).to.equal(undefined);
    });

    it("names every operation with the contract's ids: each action of each resource, batch actions, auth, schema", () => {
      const ids = operations(doc).map((o) => o.op.operationId);
      expect(new Set(ids).size).to.equal(ids.length);
      for (const r of registry.resources) {
        for (const action of ['list', 'create', 'retrieve', 'update', 'partial_update', 'destroy']) expect(ids, r.key).to.include(`${r.operationPrefix}_${action}`);
      }
      expect(ids).to.include.members(['user_list', 'organisation_mitarbeitende_list', 'tutorial_lesson_progress_list', ...registry.batches.map((b) => b.operationId)]);
      expect(ids).to.include.members(['auth_login', 'auth_logout', 'auth_me', 'auth_tokens_list', 'auth_tokens_create', 'auth_tokens_destroy', 'schema_retrieve', 'schema_swagger_ui']);
    });

    it('documents the employee list: the archived filter and an array of the employee schema', () => {
      const list = op('organisation_mitarbeitende_list').op;
      const archived = list.parameters!.map((p) => resolve<Parameter>(doc, p)).find((p) => p.name === 'archived')!;
      expect(archived).to.include({ in: 'query' });
      expect(archived.schema).to.deep.equal({ type: 'boolean' });
      expect(archived.description).to.be.a('string').and.not.empty;
      const content = resolve(doc, list.responses['200']!).content!['application/json']!.schema;
      expect(content).to.deep.equal({ type: 'array', items: { $ref: '#/components/schemas/OrganisationMitarbeitende' } });
      expect(props(schema('OrganisationMitarbeitende')).vorname!.description).to.match(/given name/i);
      expect(list.tags).to.deep.equal(['organisation']);
    });

    it('has one tag per module, every operation tagged with a described tag', () => {
      const tags = new Map(doc.tags.map((t) => [t.name, t.description]));
      for (const r of registry.resources) expect(tags.get(r.module), r.module).to.be.a('string').and.not.empty;
      for (const o of operations(doc)) expect(o.op.tags.every((t) => tags.has(t)), o.op.operationId).to.equal(true);
      expect(new Set(doc.tags.map((t) => t.name)).size).to.equal(doc.tags.length);
    });

    it('documents every list filter of every resource as a query parameter with its type and values, and the paging parameters and headers', () => {
      for (const service of suite().service.app.services.values()) {
        const list = op(`${service.resource.operationPrefix}_list`).op;
        const params = new Map(list.parameters!.map((p) => resolve<Parameter>(doc, p)).map((p) => [p.name, p]));
        for (const f of service.filters) {
          const p = params.get(f.param);
          expect(p, `${service.resource.key} ${f.param}`).to.exist;
          expect(p!.schema, f.param).to.deep.equal(f.schema);
        }
        for (const name of ['ordering', 'limit', 'offset', 'cursor', 'count']) expect(params.has(name), name).to.equal(true);
        expect(params.get('count')!.schema).to.deep.equal({ type: 'boolean' });
        expect(params.has('search')).to.equal(service.view.search.length > 0);
        const headers = resolve(doc, list.responses['200']!).headers!;
        expect(Object.keys(headers), service.resource.key).to.deep.equal(['Link', 'X-Total-Count', 'X-List-Truncated']);
        // each is sent only when its description says
        for (const h of Object.values(headers)) expect(resolve(doc, h).required, service.resource.key).to.equal(undefined);
      }
    });

    it('reads records as the contract says: record fields read-only, keys as ids, links as id arrays, decimals as strings, no passwords', () => {
      for (const r of registry.resources) {
        const read = readOf(r.key);
        const p = props(read);
        for (const f of ['id', 'uuid', 'created', 'modified', 'created_by']) expect(p[f]!.readOnly, `${r.key}.${f}`).to.equal(true);
        // a property behind a read permission is absent for callers without it (field-permissions.test.ts)
        expect(read.required).to.deep.equal(Object.keys(p).filter((name) => !(p[name] as { 'x-permission'?: { read?: string } })['x-permission']?.read));
        for (const fk of r.foreignKeys) expect(p[fk.name], `${r.key}.${fk.name}`).to.include({ type: 'integer', ...(fk.required ? {} : { nullable: true }) });
        for (const m of r.manyToMany) expect((p[m.name]!.items as Schema).type, `${r.key}.${m.name}`).to.equal('integer');
        for (const f of r.fields) {
          if (f.spec.type === 'password') expect(p, `${r.key}.${f.name}`).not.to.have.property(f.name);
          if (f.spec.type === 'decimal') expect(p[f.name], `${r.key}.${f.name}`).to.include({ type: 'string', format: 'decimal' });
        }
      }
    });

    it('documents request bodies as the validator checks them: required fields, lengths, enums, write-only passwords', () => {
      const request = requestSchemaOf(doc, op('organisation_mitarbeitende_create').op)!;
      expect(request.required).to.deep.equal(['vorname', 'nachname']);
      expect(props(request).vorname).to.include({ type: 'string', maxLength: 100 });
      expect(props(request).employment_type!.enum).to.deep.equal(['intern', 'extern', 'ehemalig']);
      expect(props(request).email).to.include({ format: 'email', nullable: true });
      expect(props(requestSchemaOf(doc, op('user_create').op)!).password).to.include({ writeOnly: true, minLength: 8 });
      const patched = requestSchemaOf(doc, op('organisation_mitarbeitende_partial_update').op)!;
      expect(patched).not.to.have.property('required');
      expect(Object.keys(props(patched))).to.deep.equal(Object.keys(props(request)));
    });

    it('documents the state log of every resource with a lifecycle', () => {
      for (const service of suite().service.app.services.values()) {
        const transitions = operations(doc).find((o) => o.op.operationId === `${service.resource.operationPrefix}_transitions`);
        expect(Boolean(transitions), service.resource.key).to.equal(service.hasStates);
        if (transitions) expect(transitions.path).to.equal(`${service.resource.path}/{id}/transitions`);
      }
      expect(props(schema('StateChange')).from).to.include({ type: 'string', nullable: true });
    });

    it('documents the batch actions of the registry', () => {
      expect(registry.batches.length).to.be.greaterThan(0);
      for (const b of registry.batches) {
        const o = op(b.operationId);
        expect(o.path).to.equal(b.path);
        const body = requestSchemaOf(doc, o.op)!;
        expect(props(body)[b.idsField]).to.include({ type: 'array', maxItems: b.maxIds });
        if (b.foreignKey) expect(props(body)[b.foreignKey.writeName]).to.include({ type: 'integer' });
        const result = resolve<Schema>(doc, resolve(doc, o.op.responses['200']!).content!['application/json']!.schema);
        expect(props(result)[b.declaration.resultKey]).to.include({ type: 'integer' });
        // 422: an Idempotency-Key used with another request
        expect(Object.keys(o.op.responses).sort()).to.deep.equal(['200', '400', '401', '403', '422']);
        expect(o.op.parameters!.map((p) => resolve<Parameter>(doc, p).name)).to.deep.equal(['Idempotency-Key']);
      }
    });

    it('documents fields and expand, ETags, If-None-Match, If-Match and Idempotency-Key on every resource', () => {
      const names = (o: ReturnType<typeof op>) => (o.op.parameters ?? []).map((p) => resolve<Parameter>(doc, p).name);
      for (const service of suite().service.app.services.values()) {
        const r = service.resource;
        const at = (suffix: string) => op(`${r.operationPrefix}_${suffix}`);
        const relations = [...r.foreignKeys, ...r.manyToMany].map((x) => x.name);
        for (const suffix of ['list', 'retrieve']) {
          const params = new Map(at(suffix).op.parameters!.map((p) => resolve<Parameter>(doc, p)).map((p) => [p.name, p]));
          expect((params.get('fields')!.schema.items as Schema).enum, r.key).to.include.members(['id', 'uuid', 'created', ...r.fields.filter((f) => f.readable).map((f) => f.name)]);
          if (relations.length) expect((params.get('expand')!.schema.items as Schema).enum, r.key).to.deep.equal(relations);
        }
        expect(names(at('retrieve'))).to.include('If-None-Match');
        expect(Object.keys(at('retrieve').op.responses)).to.include.members(['200', '304', '400']);
        for (const suffix of ['update', 'partial_update', 'destroy']) {
          expect(names(at(suffix)), `${r.key} ${suffix}`).to.include('If-Match');
          expect(at(suffix).op.responses, `${r.key} ${suffix}`).to.have.property('412');
        }
        for (const suffix of ['retrieve', 'update', 'partial_update']) expect(resolve(doc, at(suffix).op.responses['200']!).headers).to.have.property('ETag');
        expect(names(at('create'))).to.deep.equal(['Idempotency-Key']);
        expect(resolve(doc, at('create').op.responses['201']!).headers).to.have.property('Idempotent-Replayed');
        expect(at('create').op.responses).to.have.property('422');
        const read = props(readOf(r.key));
        for (const fk of r.foreignKeys) expect(read[fk.name]!['x-expand'], `${r.key}.${fk.name}`).to.deep.equal({ $ref: `#/components/schemas/${schemaNames(fk.target).read}` });
        for (const m of r.manyToMany) expect(read[m.name]!['x-expand'], `${r.key}.${m.name}`).to.deep.equal({ $ref: `#/components/schemas/${schemaNames(m.target).read}` });
      }
    });

    it('documents every deprecated path as deprecated, answering 301 with Location', async () => {
      for (const [old, successor] of (await loadRegistry()).redirects) {
        const twins = operations(doc).filter((o) => o.path === old || o.path.startsWith(`${old}/`));
        expect(twins.length, old).to.equal(operations(doc).filter((o) => !o.op.deprecated && (o.path === successor || o.path.startsWith(`${successor}/`))).length);
        for (const t of twins) {
          expect(t.op.deprecated).to.equal(true);
          expect(Object.keys(t.op.responses)).to.deep.equal(['301']);
          expect(resolve(doc, t.op.responses['301']!).headers).to.have.property('Location');
        }
      }
    });

    it('documents every state machine as declared: x-transitions and x-initial-states in the read, create and patch schemas, the moves in words', () => {
      let fields = 0;
      for (const r of registry.resources) {
        const schemas = [readOf(r.key), requestSchemaOf(doc, op(`${r.operationPrefix}_create`).op)!, requestSchemaOf(doc, op(`${r.operationPrefix}_partial_update`).op)!];
        for (const f of r.fields) {
          const spec = f.spec;
          if (spec.type !== 'state') continue;
          fields++;
          const transitions = Object.fromEntries(spec.values.map((s) => [s, spec.transitions[s] ?? []]));
          for (const schema of schemas) {
            const p = props(schema)[f.name]!;
            const label = `${r.key}.${f.name}`;
            expect(p['x-transitions'], label).to.deep.equal(transitions);
            expect(p['x-initial-states'], label).to.deep.equal(spec.initial);
            for (const [from, to] of Object.entries(transitions)) {
              if (to.length) expect(p.description, label).to.include(`\`${from}\` → ${to.map((s) => `\`${s}\``).join(' or ')}`);
            }
          }
        }
      }
      expect(fields).to.be.greaterThan(10);
    });

    it('gives optional query parameters no example or default: Swagger UI would fill them in and send them', () => {
      const filled: string[] = [];
      const keys = (x: object) => Object.keys(x).filter((k) => ['example', 'examples', 'default'].includes(k));
      for (const o of operations(doc)) {
        for (const p of (o.op.parameters ?? []).map((x) => resolve<Parameter>(doc, x))) {
          if (p.required) continue;
          const schemas = [p.schema, ...((p.schema.anyOf ?? p.schema.oneOf ?? []) as Schema[]), ...(p.schema.items ? [p.schema.items as Schema] : [])];
          for (const k of [...keys(p), ...schemas.flatMap(keys)]) filled.push(`${o.op.operationId} ?${p.name}: ${k}`);
        }
      }
      expect(filled).to.deep.equal([]);
    });

    it('gives every property of every record a plausible example: ids small, never the largest integer', () => {
      const problems: string[] = [];
      for (const r of registry.resources) {
        const p = props(readOf(r.key));
        for (const [name, s] of Object.entries(p)) {
          const json = r.fields.find((f) => f.name === name)?.spec.type === 'json';
          if (!('example' in s) && !json) problems.push(`${r.key}.${name}: no example`);
        }
        const ids = [p.id!.example, p.created_by!.example, ...r.foreignKeys.map((fk) => p[fk.name]!.example), ...r.manyToMany.flatMap((m) => p[m.name]!.example as number[])];
        for (const id of ids) if (!(typeof id === 'number' && id >= 1 && id < 1000)) problems.push(`${r.key}: id example ${String(id)}`);
      }
      expect(problems).to.deep.equal([]);
      // Swagger UI samples an integer without an example as its maximum
      const examples: unknown[] = [];
      const walk = (x: unknown, path: string): void => {
        if (typeof x !== 'object' || x === null) return;
        // an example stands for its whole subtree in Swagger UI's samples
        if ('example' in x) return void examples.push(x.example);
        if ('maximum' in x && x.maximum === 2147483647 && !path.includes('/parameters/')) problems.push(`${path}: no example`);
        Object.entries(x).forEach(([k, v]) => walk(v, `${path}/${k}`));
      };
      walk(doc, '#');
      expect(problems).to.deep.equal([]);
      expect(examples.length).to.be.greaterThan(registry.resources.length * 5);
      expect(JSON.stringify(examples)).not.to.include('2147483647');
    });

    it('gives every operation a summary, and every parameter, schema property and tag a description', () => {
      const missing: string[] = [];
      for (const o of operations(doc)) {
        if (!o.op.summary || !o.op.description) missing.push(o.op.operationId);
        for (const p of (o.op.parameters ?? []).map((x) => resolve<Parameter>(doc, x))) if (!p.description) missing.push(`${o.op.operationId} ?${p.name}`);
      }
      for (const [name, s] of Object.entries(doc.components.schemas)) {
        if (!s.description) missing.push(name);
        for (const [property, p] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) if (!p.description) missing.push(`${name}.${property}`);
      }
      expect(missing).to.deep.equal([]);
    });
  });
});
