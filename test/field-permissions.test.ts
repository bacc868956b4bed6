/**
 * Field-level permissions (issue 24), driven by the registry: every field or relation of every
 * resource that names a `read` or `write` permission is walked with a user lacking them and one
 * holding them, across list, detail, `fields=`, `expand`, filters, ordering, search, the count and
 * ETag, writes (POST, PATCH, PUT of a GET body), the audit trail and the MCP tools; then, on a
 * service of its own that delivers webhooks and takes MCP writes, webhook payloads and MCP writes
 * (exports and aggregates: reporting-exports and reporting-aggregates). The employee's private data
 * is the declared case; its values' checks and normalisation are tested at the end.
 */
import { expect } from 'chai';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fieldPermissionsOf, hasFieldPermissions } from '../engine/access/field-permissions.js';
import { entityTag } from '../engine/storage/entity-tag.js';
import type { Resource } from '../engine/registry/resource.js';
import type { Filter } from '../engine/crud/filters.js';
import type { ResourceService } from '../engine/crud/service.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { eventPrefix } from '../engine/audit/capture-triggers.js';
import { createToken } from '../engine/auth/tokens.js';
import type { ServerConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';
import { Samples } from './support/samples.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

type Row = Record<string, any>;

const registry = await loadRegistry();

const ACTIONS = ['view', 'add', 'change', 'delete'] as const;
const modelPermissions = (r: Resource) => ACTIONS.map((a) => r.permissions[a]);

/** A filter value the record's own value matches. */
function matching(f: Filter, value: unknown): string | undefined {
  if (value === null || value === undefined) return f.on.lookup === 'isnull' ? 'true' : undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  switch (f.on.lookup) {
    case 'isnull':
      return 'false';
    case 'range':
      return `${text},${text}`;
    default:
      return text;
  }
}

/** A tool's answer from the MCP endpoint of the service at `baseUrl`: its text parsed, and whether it is an error. */
async function mcpAnswer(baseUrl: string, token: string, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
  const client = new McpClient({ name: 'field-permissions-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { Authorization: `Token ${token}` } } }));
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const [content] = result.content;
    if (content?.type !== 'text') throw new Error(`tool ${name}: no text content`);
    return { isError: result.isError === true, body: JSON.parse(content.text) };
  } finally {
    await client.close();
  }
}

/** A tool's answer from the suite's service. */
const mcpCall = async (token: string, name: string, args: Record<string, unknown>): Promise<any> => (await mcpAnswer(suite().service.url, token, name, args)).body;

describe('field permissions (every masked field of every resource)', function () {
  this.timeout(300_000);
  it('some resource declares fields behind permissions (the employee’s private data)', () => {
    expect(registry.resources.filter(hasFieldPermissions).map((r) => r.key)).to.include('organisation/mitarbeitende');
  });

  it('refuses at boot a field permission no resource declares', async () => {
    const { Registry } = await import('../engine/registry/registry.js');
    const { defineResource, field } = await import('../engine/declare/index.js');
    const thing = (read: string) =>
      defineResource({
        module: 'scratch',
        name: 'thing',
        table: 'scratch_thing',
        title: 'Thing',
        description: 'A thing.',
        extraPermissions: { see_secret: 'See the secret.' },
        fields: { secret: field.string({ maxLength: 10, read, description: 'A secret.' }) },
      });
    expect(() => new Registry({ resources: [thing('scratch.see_secrets')], batches: [] })).to.throw('"secret" names the permission "scratch.see_secrets", which no resource declares');
    expect(new Registry({ resources: [thing('scratch.see_secret')], batches: [] }).permissionNames).to.include('scratch.see_secret');
  });

  /** A resource referencing `resource` whose records its model permissions alone let one see: through it, `expand` is walked. */
  const referrerOf = (resource: Resource) => resource.referencedBy.find(({ resource: r, fk }) => !fk.spec.readOnly && Object.keys(r.access).length === 0);

  it('some resource with masked fields is referenced by one whose records expand it (the expand check below runs)', () => {
    expect(registry.resources.filter(hasFieldPermissions).some((r) => referrerOf(r) !== undefined)).to.equal(true);
  });

  for (const key of registry.resources.filter(hasFieldPermissions).map((r) => r.key)) {
    const expandable = referrerOf(registry.get(key)) !== undefined;
    describe(key, () => {
      let service: ResourceService;
      let resource: Resource;
      let guarded: Map<string, { read?: string; write?: string }>;
      let lacking: TestUser;
      let holding: TestUser;
      let reader: TestUser;
      let record: Row;
      let referencing: { resource: Resource; fk: string; record: Row } | undefined;

      before(async () => {
        const { admin, service: running } = suite();
        service = running.app.services.get(key)!;
        resource = service.resource;
        guarded = fieldPermissionsOf(resource);
        const names = [...new Set([...guarded.values()].flatMap((p) => [p.read, p.write]).filter((n): n is string => n !== undefined))];
        const reads = [...new Set([...guarded.values()].map((p) => p.read).filter((n): n is string => n !== undefined))];
        const referrer = referrerOf(resource);
        const base = [...modelPermissions(resource), ...(referrer ? modelPermissions(referrer.resource) : []), 'audit.view_entry'];
        lacking = await makeUser({ permissions: base });
        holding = await makeUser({ permissions: [...base, ...names] });
        reader = await makeUser({ permissions: [...base, ...reads] });
        const samples = new Samples(admin);
        const values: Row = {};
        // a searchable masked field gets a word no other record holds
        for (const f of resource.fields) if (guarded.has(f.name) && f.spec.search) values[f.name] = unique('secretword');
        record = await samples.create(resource, { values });
        if (referrer) {
          const made = await samples.create(referrer.resource, { values: { [referrer.fk.writeName]: record.id } });
          referencing = { resource: referrer.resource, fk: referrer.fk.name, record: made };
        }
      });

      const masked = () => [...guarded].filter(([, p]) => p.read).map(([name]) => name);
      const detailPath = () => `${resource.path}/${record.id}`;

      it('serves list and detail without the fields (absent, not null) to a caller lacking the read permission', async () => {
        const byId = `${resource.path}?uuid=${record.uuid}`;
        const [hidden, shown] = [(await lacking.client.get(byId)).body[0], (await holding.client.get(byId)).body[0]];
        const [hiddenDetail, shownDetail] = [(await lacking.client.get(detailPath())).body, (await holding.client.get(detailPath())).body];
        for (const name of masked()) {
          expect(hidden, name).not.to.have.property(name);
          expect(hiddenDetail, name).not.to.have.property(name);
          expect(shown, name).to.have.property(name);
          expect(shownDetail[name], name).to.deep.equal(record[name]);
        }
        expect(Object.keys(hidden).sort()).to.deep.equal(Object.keys(shown).filter((k) => !masked().includes(k)).sort());
      });

      it('answers `fields=` naming a masked field 400 as an unknown field', async () => {
        for (const name of masked()) {
          for (const path of [`${resource.path}?fields=id,${name}`, `${detailPath()}?fields=id,${name}`]) {
            const refused = await lacking.client.get(path);
            expect(refused.status, path).to.equal(400);
            expect(refused.body).to.deep.equal({ fields: [`Unknown field "${name}".`] });
            expect((await holding.client.get(path)).status, path).to.equal(200);
          }
        }
      });

      if (expandable)
        it('leaves the masked fields out of an expanded related record', async () => {
          const path = `${referencing!.resource.path}/${referencing!.record.id}?expand=${referencing!.fk}`;
          const [hidden, shown] = [(await lacking.client.get(path)).body, (await holding.client.get(path)).body];
          for (const name of masked()) {
            expect(hidden[referencing!.fk], name).not.to.have.property(name);
            expect(shown[referencing!.fk][name], name).to.deep.equal(record[name]);
          }
        });

      it('answers a filter on a masked field 400 under its parameter, and filters for a holder', async () => {
        const filters = service.filters.filter((f) => masked().includes(f.on.key));
        expect(filters.map((f) => f.param)).to.include.members(['birth_date_from', 'birth_date_to', 'civil_status']);
        for (const f of filters) {
          const value = matching(f, record[f.on.key]);
          if (value === undefined) continue;
          const path = `${resource.path}?uuid=${record.uuid}&${f.param}=${encodeURIComponent(value)}`;
          const refused = await lacking.client.get(path);
          expect(refused.status, f.param).to.equal(400);
          expect(Object.keys(refused.body), f.param).to.deep.equal([f.param]);
          const found = await holding.client.get(path);
          expect(found.status, f.param).to.equal(200);
          expect(found.body.map((r: Row) => r.id), f.param).to.deep.equal([record.id]);
        }
      });

      it('answers ordering by a masked field 400 as for an unknown one, and orders for a holder', async () => {
        const unknown = await lacking.client.get(`${resource.path}?ordering=no_such_field`);
        for (const name of masked()) {
          const refused = await lacking.client.get(`${resource.path}?ordering=-${name}`);
          expect(refused.status, name).to.equal(400);
          expect(refused.body, name).to.deep.equal({ ordering: [`Cannot order by "${name}".`] });
          expect(unknown.body.ordering[0]).to.equal('Cannot order by "no_such_field".');
          if (service.orderable.has(name)) expect((await holding.client.get(`${resource.path}?ordering=-${name}`)).status, name).to.equal(200);
        }
        expect(service.orderable.has('birth_date')).to.equal(true);
      });

      it('does not search in masked fields for a caller lacking the read permission', async () => {
        const searched = resource.fields.filter((f) => masked().includes(f.name) && f.spec.search);
        expect(searched.map((f) => f.name)).to.include('hr_notes');
        for (const f of searched) {
          const path = `${resource.path}?search=${encodeURIComponent(record[f.name])}`;
          expect((await lacking.client.get(path)).body, f.name).to.deep.equal([]);
          expect((await holding.client.get(path)).body.map((r: Row) => r.id), f.name).to.deep.equal([record.id]);
        }
      });

      it('serves the same X-Total-Count, and an ETag of what each caller is served', async () => {
        const path = `${resource.path}?count=true&uuid=${record.uuid}`;
        const counts = await Promise.all([lacking, holding].map(async (u) => (await u.client.get(path)).headers.get('X-Total-Count')));
        expect(counts).to.deep.equal(['1', '1']);
        const [hidden, shown] = [await lacking.client.get(detailPath()), await holding.client.get(detailPath())];
        expect(hidden.headers.get('ETag')).to.equal(entityTag(hidden.text));
        // a holder's tag covers the masked fields too (of encrypted ones, their stored form: field-encryption.test.ts)
        expect(shown.headers.get('ETag')).not.to.equal(hidden.headers.get('ETag'));
        // the caller's own tag is the precondition of their write
        const put = await lacking.client.put(detailPath(), hidden.body, { headers: { 'If-Match': hidden.headers.get('ETag')! } });
        expect(put.status, put.text).to.equal(200);
        const stale = await lacking.client.patch(detailPath(), {}, { headers: { 'If-Match': hidden.headers.get('ETag')! } });
        expect(stale.status).to.equal(412);
      });

      it('refuses a write that sets a masked field without the write permission (403 naming it), writing nothing', async () => {
        const before = (await holding.client.get(detailPath())).body;
        const { admin } = suite();
        const body = await new Samples(admin).body(resource);
        const total = (await admin.get(`${resource.path}?count=true&limit=1`)).headers.get('X-Total-Count');
        for (const [name, p] of guarded) {
          if (!p.write) continue;
          const value = body[name];
          const created = await lacking.client.post(resource.path, body);
          expect(created.status, name).to.equal(403);
          expect(created.body.detail, name).to.contain(`"${name}"`);
          const patched = await lacking.client.patch(detailPath(), { [name]: value });
          expect(patched.status, name).to.equal(403);
          expect(patched.body).to.deep.equal({ detail: `You do not have permission to change "${name}".` });
        }
        const after = (await holding.client.get(detailPath())).body;
        expect(after).to.deep.equal(before);
        // nothing was created either
        expect((await admin.get(`${resource.path}?count=true&limit=1`)).headers.get('X-Total-Count')).to.equal(total);
      });

      it('keeps the stored values on a PUT of the GET body of a caller who cannot read them', async () => {
        const before = (await holding.client.get(detailPath())).body;
        const got = (await lacking.client.get(detailPath())).body;
        const put = await lacking.client.put(detailPath(), got);
        expect(put.status, put.text).to.equal(200);
        for (const name of masked()) expect(put.body, name).not.to.have.property(name);
        const after = (await holding.client.get(detailPath())).body;
        for (const name of masked()) expect(after[name], name).to.deep.equal(before[name]);
      });

      it('lets a caller who may read but not write send the values back unchanged, and refuses a change', async () => {
        const got = (await reader.client.get(detailPath())).body;
        const put = await reader.client.put(detailPath(), got);
        expect(put.status, put.text).to.equal(200);
        expect(put.body.hr_notes).to.equal(got.hr_notes);
        const changed = await reader.client.patch(detailPath(), { hr_notes: 'changed' });
        expect(changed.status).to.equal(403);
        expect(changed.body.detail).to.equal('You do not have permission to change "hr_notes".');
      });

      it('lets a holder write them', async () => {
        const patched = await holding.client.patch(detailPath(), { hr_notes: record.hr_notes, civil_status: 'married' });
        expect(patched.status, patched.text).to.equal(200);
        expect(patched.body.civil_status).to.equal('married');
        record = patched.body;
      });

      it('masks the audit trail for a reader lacking the read permission', async () => {
        const path = `/api/audit?resource=${encodeURIComponent(resource.key)}&record_id=${record.id}`;
        const [hidden, shown] = [(await lacking.client.get(path)).body as Row[], (await holding.client.get(path)).body as Row[]];
        expect(hidden.length).to.be.greaterThan(0);
        expect(hidden.map((e) => e.id)).to.deep.equal(shown.map((e) => e.id));
        const columns = resource.fields.filter((f) => masked().includes(f.name) && f.column).map((f) => f.column!);
        for (const entry of hidden) for (const column of columns) expect(entry.changes, column).not.to.have.property(column);
        const made = shown.find((e) => e.action === 'create')!;
        expect(made.changes).to.have.property('hr_notes');
        const detail = await lacking.client.get(`/api/audit/${made.id}`);
        for (const column of columns) expect(detail.body.changes, column).not.to.have.property(column);
      });

      it('neither shows nor offers masked fields through MCP', async () => {
        const [described] = await mcpCall(lacking.token, 'describe_resources', { resource: key });
        const [full] = await mcpCall(holding.token, 'describe_resources', { resource: key });
        const names = (d: any) => [...d.fields.map((f: Row) => f.name), ...d.relations.map((r: Row) => r.name)];
        for (const name of masked()) {
          expect(names(described), name).not.to.include(name);
          expect(names(full), name).to.include(name);
          expect(described.ordering, name).not.to.include(name);
        }
        expect(described.filters.map((f: Row) => f.name)).not.to.include('birth_date_from');
        // offered for writing only to who may write them: a reader is shown them, not offered them
        const [read] = await mcpCall(reader.token, 'describe_resources', { resource: key });
        const entry = (d: any, name: string) => [...d.fields, ...d.relations].find((e: Row) => e.name === name);
        for (const [name, p] of guarded) {
          if (!p.write) continue;
          expect(entry(full, name).writable, name).to.equal(true);
          if (p.read) expect(entry(read, name).writable, name).to.equal(false);
        }
        const got = await mcpCall(lacking.token, 'get_record', { resource: key, id: record.id });
        const listed = await mcpCall(lacking.token, 'list_records', { resource: key, filters: { uuid: record.uuid } });
        for (const name of masked()) {
          expect(got, name).not.to.have.property(name);
          expect(listed[0], name).not.to.have.property(name);
        }
        expect((await mcpCall(holding.token, 'get_record', { resource: key, id: record.id })).hr_notes).to.equal(record.hr_notes);
      });

      it('marks the masked properties in the one OpenAPI document, and keeps them out of `required`', async () => {
        const doc = (await suite().admin.get('/api/schema?format=json')).body;
        const schemas = doc.components.schemas as Record<string, Row>;
        const read = Object.values(schemas).find((s) => s.title === resource.title && s.properties?.id)!;
        for (const [name, permission] of guarded) {
          expect(read.properties[name]['x-permission'], name).to.deep.equal(permission);
          if (permission.read) expect(read.required, name).not.to.include(name);
        }
      });
    });
  }
});

describe('field permissions in webhook payloads and MCP writes (a service of its own that delivers and takes MCP writes)', function () {
  this.timeout(300_000);
  let database: TestDatabase;
  let on: { service: RunningService; admin: Client };

  before(async () => {
    database = await createTestDatabase();
    const overrides: Partial<ServerConfig> = { mcpWriteEnabled: true, webhooks: { dispatch: true, allowPrivate: true, pollMs: 50 }, jobs: { run: false } };
    const service = await startService(testConfig(database, overrides), createLogger('silent'), { quiet: true });
    const { id } = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    on = { service, admin: new Client(service.url, (await createToken(service.db, id, 'field-permissions')).key) };
  });
  after(async () => {
    await on?.service.close();
    await database?.drop();
  });

  for (const key of registry.resources.filter(hasFieldPermissions).map((r) => r.key)) {
    describe(key, () => {
      const resource = registry.get(key);
      const guarded = fieldPermissionsOf(resource);
      const masked = [...guarded].filter(([, p]) => p.read).map(([name]) => name);
      const names = [...new Set([...guarded.values()].flatMap((p) => [p.read, p.write]).filter((n): n is string => n !== undefined))];
      const receivers = { lacking: new WebhookReceiver(), holding: new WebhookReceiver() };
      /** A masked text field a holder may set to any words (the employee's `hr_notes`). */
      const notes = resource.fields.find((f) => guarded.get(f.name)?.read && guarded.get(f.name)?.write && f.spec.type === 'text')!.name;
      let lacking: TestUser;
      let holding: TestUser;

      before(async () => {
        const base = [...modelPermissions(resource), 'webhook.add_subscription'];
        lacking = await makeUser({ permissions: base }, on);
        holding = await makeUser({ permissions: [...base, ...names] }, on);
        for (const [user, receiver] of [[lacking, receivers.lacking], [holding, receivers.holding]] as const) {
          const sub = await user.client.post('/api/webhook/subscription', { url: await receiver.start(), events: [`${eventPrefix(resource)}.created`, `${eventPrefix(resource)}.updated`], secret: 'a-secret-of-sixteen-or-more' });
          expect(sub.status, sub.text).to.equal(201);
        }
      });
      after(async () => {
        for (const receiver of Object.values(receivers)) await receiver.stop();
      });

      it('delivers payloads without the masked fields to a subscriber lacking the read permission, with them to a holder', async () => {
        const record = await new Samples(on.admin).create(resource);
        const changed = await on.admin.patch(`${resource.path}/${record.id}`, { [notes]: unique('changed notes') });
        expect(changed.status, changed.text).to.equal(200);
        for (const event of ['created', 'updated']) {
          const name = `${eventPrefix(resource)}.${event}`;
          const payload = (receiver: WebhookReceiver) => until(`${name} at ${receiver === receivers.lacking ? 'lacking' : 'holding'}`, () => receiver.received.find((r) => r.body.event === name && r.body.id === record.id)?.body);
          const [hidden, shown] = [await payload(receivers.lacking), await payload(receivers.holding)];
          const served = event === 'created' ? record : changed.body;
          for (const field of masked) {
            expect(hidden.data, `${event} ${field}`).not.to.have.property(field);
            expect(shown.data[field], `${event} ${field}`).to.deep.equal(served[field]);
          }
          expect(Object.keys(hidden.data).sort(), event).to.deep.equal(Object.keys(shown.data).filter((k) => !masked.includes(k)).sort());
        }
      });

      it('refuses an MCP create or update that sets a masked field without the write permission, writing nothing; a holder writes it', async () => {
        const record = await new Samples(on.admin).create(resource);
        const body = await new Samples(on.admin).body(resource);
        const before = (await on.admin.get(`${resource.path}/${record.id}`)).body;
        const total = (await on.admin.get(`${resource.path}?count=true&limit=1`)).headers.get('X-Total-Count');
        const url = on.service.url;
        const denied = (name: string) => ({ status: 403, error: { detail: `You do not have permission to change "${name}".` } });
        for (const [name, p] of guarded) {
          if (!p.write) continue;
          const create = await mcpAnswer(url, lacking.token, 'create_record', { resource: key, values: body });
          expect(create.isError, name).to.equal(true);
          expect(create.body.status, name).to.equal(403);
          expect(create.body.error.detail, name).to.contain(`"${name}"`);
          const update = await mcpAnswer(url, lacking.token, 'update_record', { resource: key, id: record.id, values: { [name]: body[name] } });
          expect([update.isError, update.body], name).to.deep.equal([true, denied(name)]);
        }
        expect((await on.admin.get(`${resource.path}/${record.id}`)).body).to.deep.equal(before);
        expect((await on.admin.get(`${resource.path}?count=true&limit=1`)).headers.get('X-Total-Count')).to.equal(total);
        // the same write by a holder goes through
        const words = unique('notes by mcp');
        const written = await mcpAnswer(url, holding.token, 'update_record', { resource: key, id: record.id, values: { [notes]: words } });
        expect(written.isError, JSON.stringify(written.body)).to.equal(false);
        expect((await on.admin.get(`${resource.path}/${record.id}`)).body[notes]).to.equal(words);
      });
    });
  }
});
