/**
 * `/mcp` (issue 14): the Model Context Protocol over streamable HTTP, spoken by the SDK's own client
 * against a listening server. Tools come from the registry; every call runs with the caller's
 * token through the same permissions and visibility as REST; writes only when MCP_WRITE_ENABLED.
 */
import { expect } from 'chai';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createToken } from '../engine/auth/tokens.js';
import { createLogger } from '../engine/log.js';
import { startService } from '../engine/service.js';
import { createTestDatabase } from './support/database.js';
import { Client } from './support/client.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';

const open: McpClient[] = [];

async function connect(baseUrl: string, token: string): Promise<McpClient> {
  const client = new McpClient({ name: 'bms-api-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { Authorization: `Token ${token}` } } });
  await client.connect(transport);
  open.push(client);
  return client;
}

/** The tool's text, parsed; `isError` says whether it is an error answer. */
async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [content] = result.content;
  if (content?.type !== 'text') throw new Error(`tool ${name}: no text content`);
  return { isError: result.isError === true, body: JSON.parse(content.text) };
}

describe('MCP server (/mcp)', () => {
  after(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  it('refuses a request without a token, before any protocol', async () => {
    const res = await fetch(new URL('/mcp', suite().service.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ detail: 'Authentication credentials were not provided.' });
  });

  it('answers a plain JSON-RPC POST that accepts JSON only, as curl would send it', async () => {
    const { admin } = suite();
    const res = await fetch(new URL('/mcp', admin.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Token ${admin.token!}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { id: number; result: { tools: { name: string }[] } };
    expect([body.id, body.result.tools.map((t) => t.name)]).to.deep.equal([7, ['describe_resources', 'list_records', 'aggregate_records', 'get_record', 'get_history']]);
    expect((await fetch(new URL('/mcp', admin.baseUrl), { headers: { Authorization: `Token ${admin.token!}` } })).status).to.equal(405);
  });

  /** `body` POSTed to /mcp as curl would, with the admin's token. */
  const postMcp = (body: string) =>
    fetch(new URL('/mcp', suite().admin.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Token ${suite().admin.token!}` },
      body,
    });
  const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it('refuses a body over 1 MiB with 413, as REST does (issue 22)', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'describe_resources', arguments: { padding: 'x'.repeat(1024 * 1024) } } };
    const res = await postMcp(JSON.stringify(call));
    expect([res.status, await res.json()]).to.deep.equal([413, { detail: 'Request body too large.' }]);
  });

  it('answers a batch of up to 20 messages and refuses a larger one with a JSON-RPC error (issue 22)', async () => {
    const answered = await postMcp(JSON.stringify(Array.from({ length: 20 }, (_, i) => toolsList(i + 1))));
    expect(answered.status).to.equal(200);
    expect(((await answered.json()) as { id: number }[]).map((a) => a.id).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    const refused = await postMcp(JSON.stringify(Array.from({ length: 21 }, (_, i) => toolsList(i + 1))));
    expect([refused.status, await refused.json()]).to.deep.equal([
      400,
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: Batch must not exceed 20 messages' }, id: null },
    ]);
  });

  it('lists the read tools, the reachable resources as an enum, without users, groups or salaries', async () => {
    const { admin } = suite();
    const client = await connect(admin.baseUrl, admin.token!);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(['describe_resources', 'list_records', 'aggregate_records', 'get_record', 'get_history']);
    const keys = (tools[1]!.inputSchema.properties!.resource as { enum: string[] }).enum;
    expect(keys).to.include.members(['bot/aimodel', 'bot/chatspace']);
    for (const hidden of ['user', 'customgroup', 'organisation/salary']) expect(keys).to.not.include(hidden);
    const filters = tools[1]!.inputSchema.properties!.filters as { propertyNames: { enum: string[] } };
    expect(filters.propertyNames.enum).to.include.members(['provider', 'uuid', 'created_after']);
  });

  it('describes, lists with a filter and gets a record; refuses an unknown filter with a tool error', async () => {
    const { admin } = suite();
    const provider = unique('prov');
    const model = await created(admin, '/api/bot/aimodel', { name: unique('model'), provider, context_window: 1000 });
    await created(admin, '/api/bot/aimodel', { name: unique('model'), provider: unique('other'), context_window: 2000 });
    const client = await connect(admin.baseUrl, admin.token!);

    const described = await call(client, 'describe_resources', { resource: 'bot/aimodel' });
    expect(described.isError).to.equal(false);
    const [aimodel] = described.body;
    expect(aimodel.path).to.equal('/api/bot/aimodel');
    expect(aimodel.fields.map((f: { name: string }) => f.name)).to.include.members(['name', 'provider', 'context_window']);
    expect(aimodel.filters.map((f: { name: string }) => f.name)).to.include('provider');
    const all = await call(client, 'describe_resources', {});
    expect(all.body.map((r: { resource: string }) => r.resource)).to.not.include('organisation/salary');

    const listed = await call(client, 'list_records', { resource: 'bot/aimodel', filters: { provider } });
    expect(listed.body.map((r: { id: number }) => r.id)).to.deep.equal([model.id]);
    const got = await call(client, 'get_record', { resource: 'bot/aimodel', id: model.id });
    expect(got.body).to.deep.equal((await admin.get(`/api/bot/aimodel/${model.id}`)).body);

    const unknown = await call(client, 'list_records', { resource: 'bot/aimodel', filters: { nonsense: 'x' } });
    expect(unknown.isError).to.equal(true);
    expect(unknown.body.status).to.equal(400);
    const badValue = await call(client, 'list_records', { resource: 'bot/aimodel', filters: { uuid: 'not-a-uuid' } });
    const rest = await admin.get('/api/bot/aimodel?uuid=not-a-uuid');
    expect(rest.status).to.equal(400);
    expect([badValue.isError, badValue.body]).to.deep.equal([true, { status: 400, error: rest.body }]);
    const salary = await call(client, 'list_records', { resource: 'organisation/salary' });
    expect([salary.isError, salary.body.status]).to.deep.equal([true, 400]);
  });

  it("shows a record's file as its metadata, never its bytes", async () => {
    const { admin } = suite();
    const folder = await created(admin, '/api/dms/folder', { title: unique('mcp') });
    const doc = await created(admin, '/api/dms/document', { title: unique('mcp doc'), folder_id: folder.id });
    const bytes = 'the bytes an agent never sees\n';
    const upload = await admin.request('PUT', `/api/dms/document/${doc.id}/file`, { raw: bytes, headers: { 'Content-Type': 'text/plain', 'Content-Disposition': 'attachment; filename="notes.txt"' } });
    expect(upload.status, upload.text).to.equal(200);
    const client = await connect(admin.baseUrl, admin.token!);
    const got = await call(client, 'get_record', { resource: 'dms/document', id: doc.id });
    expect(got.body.file).to.deep.equal(upload.body);
    expect(got.body.file).to.include({ name: 'notes.txt', size: bytes.length, type: 'text/plain', url: `/api/dms/document/${doc.id}/file` });
    expect(JSON.stringify(got.body)).not.to.include('never sees');
    const [described] = (await call(client, 'describe_resources', { resource: 'dms/document' })).body;
    expect(described.files.map((f: { name: string; kind: string }) => [f.name, f.kind])).to.deep.equal([['file', 'file']]);
    expect((await client.listTools()).tools.map((t) => t.name).filter((n) => /file|download/.test(n))).to.deep.equal([]);
  });

  it('refuses a caller without the view permission, and keeps a hidden record hidden', async () => {
    const { admin } = suite();
    const hidden = await created(admin, '/api/bot/chatspace', { title: unique('hidden'), visibility: 'protected' });
    const shown = await created(admin, '/api/bot/chatspace', { title: unique('shown'), visibility: 'normal' });

    const stranger = await makeUser({ permissions: ['bot.view_aimodel'] });
    const refused = await call(await connect(admin.baseUrl, stranger.token), 'list_records', { resource: 'bot/chatspace' });
    expect([refused.isError, refused.body]).to.deep.equal([true, { status: 403, error: { detail: 'You do not have permission to perform this action.' } }]);

    const viewer = await makeUser({ permissions: ['bot.view_chatspace'] });
    const client = await connect(admin.baseUrl, viewer.token);
    const byAdmin = await call(await connect(admin.baseUrl, admin.token!), 'list_records', { resource: 'bot/chatspace', limit: 100, search: 'hidden' });
    expect(byAdmin.body.map((r: { id: number }) => r.id)).to.include(hidden.id);
    const listed = await call(client, 'list_records', { resource: 'bot/chatspace', limit: 100, search: 'hidden' });
    expect(listed.body.map((r: { id: number }) => r.id)).to.not.include(hidden.id);
    const got = await call(client, 'get_record', { resource: 'bot/chatspace', id: hidden.id });
    expect([got.isError, got.body]).to.deep.equal([true, { status: 404, error: { detail: 'Not found.' } }]);
    expect((await call(client, 'get_record', { resource: 'bot/chatspace', id: shown.id })).body.id).to.equal(shown.id);
  });

  it('refuses create_record, update_record and restore_version while MCP_WRITE_ENABLED is unset', async () => {
    const { admin } = suite();
    const client = await connect(admin.baseUrl, admin.token!);
    const create = await call(client, 'create_record', { resource: 'bot/aimodel', values: { name: unique('m'), provider: 'p', context_window: 1 } });
    expect([create.isError, create.body.status]).to.deep.equal([true, 403]);
    const update = await call(client, 'update_record', { resource: 'bot/aimodel', id: 1, values: { provider: 'p' } });
    expect([update.isError, update.body.status]).to.deep.equal([true, 403]);
    const restore = await call(client, 'restore_version', { resource: 'bot/aimodel', id: 1, version: 1 });
    expect([restore.isError, restore.body.status]).to.deep.equal([true, 403]);
  });

  describe('with MCP_WRITE_ENABLED=true', () => {
    it('offers and runs create_record and update_record through the REST checks', async function () {
      this.timeout(120_000);
      // PGlite serves one process: a second instance there needs a database of its own
      const shared = suite().database.databaseUrl !== undefined;
      const database = shared ? suite().database : await createTestDatabase();
      const svc = await startService(testConfig(database, { mcpWriteEnabled: true }), createLogger('silent'), { quiet: true });
      try {
        const adminId = ((await svc.db('users').where({ username: 'admin' }).first('id')) as { id: number }).id;
        const token = (await createToken(svc.db, adminId, 'mcp')).key;
        const client = await connect(svc.url, token);
        expect((await client.listTools()).tools.map((t) => t.name)).to.include.members(['create_record', 'update_record', 'restore_version']);

        const name = unique('model');
        const made = await call(client, 'create_record', { resource: 'bot/aimodel', values: { name, provider: 'mcp', context_window: 4096 } });
        expect([made.isError, made.body.name, made.body.context_window]).to.deep.equal([false, name, 4096]);
        const changed = await call(client, 'update_record', { resource: 'bot/aimodel', id: made.body.id, values: { provider: 'changed' } });
        expect(changed.body.provider).to.equal('changed');
        const rest = new Client(svc.url, token);
        expect((await rest.get(`/api/bot/aimodel/${made.body.id}`)).body.provider).to.equal('changed');
        const audited = (await rest.get(`/api/audit?resource=bot/aimodel&record_id=${made.body.id}`)).body as { action: string; user: number | null }[];
        expect(audited.map((e) => [e.action, e.user]), 'recorded as the caller\'s, as a REST write is').to.deep.equal([['update', adminId], ['create', adminId]]);
        // its history, and the first version written back: a version of its own
        const versions = (await call(client, 'get_history', { resource: 'bot/aimodel', id: made.body.id })).body as { version: number; values: { provider: string } }[];
        expect(versions.map((v) => v.values.provider)).to.deep.equal(['changed', 'mcp']);
        const restored = await call(client, 'restore_version', { resource: 'bot/aimodel', id: made.body.id, version: versions[1]!.version });
        expect([restored.isError, restored.body.provider]).to.deep.equal([false, 'mcp']);
        expect((await call(client, 'get_history', { resource: 'bot/aimodel', id: made.body.id })).body).to.have.length(3);
        // restoring needs the change permission, as the REST restore does: a reader sees the versions and is refused
        const { body: meta } = await rest.get('/app/metadata.json');
        const reader = await makeUser({ permissions: [meta.resources['bot/aimodel'].permissions.view] }, { admin: rest, service: svc });
        const readerClient = await connect(svc.url, reader.token);
        expect((await call(readerClient, 'get_history', { resource: 'bot/aimodel', id: made.body.id })).body).to.have.length(3);
        const refusedRestore = await call(readerClient, 'restore_version', { resource: 'bot/aimodel', id: made.body.id, version: versions[1]!.version });
        const restRestore = await reader.client.post(`/api/bot/aimodel/${made.body.id}/history/${versions[1]!.version}/restore`, {});
        expect(restRestore.status).to.equal(403);
        expect([refusedRestore.isError, refusedRestore.body]).to.deep.equal([true, { status: 403, error: restRestore.body }]);
        // a version that is not the record's: 404, as REST answers
        const stray = await call(client, 'restore_version', { resource: 'bot/aimodel', id: made.body.id, version: 2147483647 });
        expect([stray.isError, stray.body.status]).to.deep.equal([true, 404]);
        expect((await rest.get(`/api/bot/aimodel/${made.body.id}`)).body.provider).to.equal('mcp');

        const invalid = { name: '', provider: 'mcp', context_window: 0 };
        const refused = await call(client, 'create_record', { resource: 'bot/aimodel', values: invalid });
        const restRefusal = await rest.post('/api/bot/aimodel', invalid);
        expect(restRefusal.status).to.equal(400);
        expect([refused.isError, refused.body]).to.deep.equal([true, { status: 400, error: restRefusal.body }]);
        // half a surrogate pair: /mcp reads its body as REST does, and refuses it whole, not stored as U+FFFD (issue 22.10)
        const lone = await call(client, 'create_record', { resource: 'bot/aimodel', values: { name: `${name}\ud800`, provider: 'mcp', context_window: 1 } }).catch((err: Error) => err);
        expect(String(lone)).to.include('JSON parse error - Unpaired UTF-16 surrogate');
        expect((await rest.get(`/api/bot/aimodel?name=${encodeURIComponent(name)}`)).body).to.have.length(1);
        await client.close();
      } finally {
        await svc.close();
        if (!shared) await database.drop();
      }
    });
  });
});
