/**
 * The engine's own tables are declared resources (declare/engine-table.ts), served by the routes,
 * list plan and paging every resource has: a wrong declaration is a compile error (each
 * `@ts-expect-error` below fails the build when the types let it through) or refused at start-up;
 * their permission names come from their declared actions; their lists page by the declared page
 * and link the next page by offset; a subscription's writes take `If-Match` and `Idempotency-Key`
 * as every resource's do.
 */
import { expect } from 'chai';
import { defineResource, field } from '../engine/declare/index.js';
import { defineEngineTable } from '../engine/declare/engine-table.js';
import { compileEngineTables } from '../engine/registry/compile.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { permissionOf } from '../engine/registry/resource.js';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';

const registry = await loadRegistry();
const scratch = { module: 'scratch', name: 'log', table: 'scratch_log', title: 'Scratch log', description: 'A table of this test only.' } as const;
const fields = { at: field.datetime({ description: 'When.' }), actor: field.integer({ description: 'Who.' }) };

const SECRET = 'a-secret-of-sixteen-or-more';
const subscribe = (url: string) => created(suite().admin, '/api/webhook/subscription', { url, events: ['issue.tracker.created'], secret: SECRET });

describe('engine tables', () => {
  it('are typed: engine keys are refused in a module declaration, and names must be declared', () => {
    // @ts-expect-error a module's resource declares no page (nor writes, visible, columns)
    defineResource({ ...scratch, fields, page: { size: 10, max: 20 } });
    // @ts-expect-error `columns` names declared fields only
    defineEngineTable({ ...scratch, fields, columns: { nobody: 'nobody_id' } });
    // @ts-expect-error the ordering names declared fields or id
    defineEngineTable({ ...scratch, fields, ordering: ['-when'] });
    // @ts-expect-error id is every table's: not a record column to choose
    defineEngineTable({ ...scratch, fields, recordColumns: ['id'] });
    const table = defineEngineTable({ ...scratch, fields, columns: { actor: 'actor_id' }, ordering: ['-id'], recordColumns: ['created'] });
    const [compiled] = compileEngineTables([table], registry.resources);
    expect(compiled!.fields.map((f) => [f.name, f.column, f.writable])).to.deep.equal([
      ['at', 'at', false],
      ['actor', 'actor_id', false],
    ]);
    expect(compiled!.actions).to.deep.equal(['view']);
  });

  it('are refused at start-up when they take a module table, or name a column of no field', () => {
    expect(() => compileEngineTables([defineEngineTable({ ...scratch, table: registry.resources[0]!.table, fields })], registry.resources)).to.throw(/is used by another resource/);
    const erased = { ...scratch, fields, columns: { nobody: 'x' } } as unknown as Parameters<typeof defineEngineTable>[0];
    expect(() => compileEngineTables([defineEngineTable(erased)], registry.resources)).to.throw('Resource "scratch/log": columns names unknown field "nobody".');
  });

  it('give their permission names once, from their actions: view only when read-only', () => {
    const names = (key: string) => registry.tables.find((t) => t.key === key)!.actions.map((a) => registry.tables.find((t) => t.key === key)!.permissions[a]);
    expect(names('audit')).to.deep.equal(['audit.view_entry']);
    expect(names('webhook/delivery')).to.deep.equal(['webhook.view_delivery']);
    expect(names('webhook/subscription')).to.deep.equal(['webhook.view_subscription', 'webhook.add_subscription', 'webhook.change_subscription', 'webhook.delete_subscription']);
    for (const t of registry.tables) for (const a of t.actions) if (permissionOf(t, a)) expect(registry.permissionNames.has(t.permissions[a]), t.permissions[a]).to.equal(true);
    expect(registry.permissionNames.has('audit.add_entry')).to.equal(false);
    // the trash holds the modules' records: it reads and purges (DELETE), under each record's own permissions, and has no name of its own
    const trash = registry.tables.find((t) => t.key === 'trash')!;
    expect(trash.actions).to.deep.equal(['view', 'delete']);
    expect(trash.actions.map((a) => permissionOf(trash, a))).to.deep.equal([undefined, undefined]);
    expect([...registry.permissionNames].filter((name) => name.startsWith('trash.'))).to.deep.equal([]);
  });

  it('serve the trash as one: its filters by their own names, pages by offset, and no create or change', async () => {
    const { admin } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('trash table') });
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: unique('trashed') });
    expect((await admin.delete(`/api/issue/issue/${issue.id}`)).status).to.equal(204);
    const [entry] = (await admin.get(`/api/trash?resource=issue/issue&record_id=${issue.id}&deleted_after=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).body as any[];
    expect(Object.keys(entry)).to.deep.equal(['id', 'resource', 'record_id', 'deleted_at', 'deleted_by', 'request_id', 'values', 'links']);
    expect((await admin.get(`/api/trash?deleted_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&record_id=${issue.id}`)).body).to.deep.equal([]);
    expect((await admin.get('/api/trash?deleted_after=yesterday')).status).to.equal(400);
    expect((await admin.get('/api/trash?limit=1')).headers.get('link')).to.match(/<[^>]*\/api\/trash\?limit=1&offset=1>; rel="next"$/);
    expect((await admin.get(`/api/trash/${entry.id}?fields=id,record_id`)).body).to.deep.equal({ id: entry.id, record_id: issue.id });
    for (const method of ['post', 'patch'] as const) expect((await admin[method](method === 'post' ? '/api/trash' : `/api/trash/${entry.id}`, {})).status).to.equal(405);
    // a user with no view permission of any trashed resource sees an empty trash, not a 403
    const stranger = await makeUser();
    expect((await stranger.client.get('/api/trash')).body).to.deep.equal([]);
    expect((await stranger.client.get(`/api/trash/${entry.id}`)).status).to.equal(404);
    expect((await stranger.client.delete(`/api/trash/${entry.id}`)).status).to.equal(404);
  });

  it('page by the declared page: its size by default, limit up to its most, next by offset', async () => {
    const { admin } = suite();
    for (let i = 0; i < 3; i++) await subscribe(`https://page-${i}.example.com/`);
    const first = await admin.get('/api/webhook/subscription?limit=2');
    expect(first.status).to.equal(200);
    expect(first.body).to.have.length(2);
    expect(first.body[0].id).to.be.greaterThan(first.body[1].id);
    expect(first.headers.get('link')).to.match(/<[^>]*\/api\/webhook\/subscription\?limit=2&offset=2>; rel="next"$/);
    const second = await admin.get('/api/webhook/subscription?limit=2&offset=2');
    expect(second.headers.get('link')).to.match(/rel="prev"/);
    expect(second.body[0].id).to.be.lessThan(first.body[1].id);
    for (const limit of ['0', '1001']) expect((await admin.get(`/api/audit?limit=${limit}`)).body).to.deep.equal({ limit: ['Ensure this value is between 1 and 1000.'] });
    expect(((await admin.get('/api/audit')).body as unknown[]).length).to.be.at.most(100);
  });

  it('serve fields= and ordering= as every list does, and only their own keys', async () => {
    const { admin } = suite();
    const sub = await subscribe('https://shaped.example.com/');
    const shaped = await admin.get(`/api/webhook/subscription/${sub.id}?fields=id,url`);
    expect(shaped.body).to.deep.equal({ id: sub.id, url: 'https://shaped.example.com/' });
    expect(Object.keys(sub)).to.deep.equal(['id', 'url', 'events', 'active', 'created', 'modified', 'created_by']);
    const oldestFirst = (await admin.get('/api/webhook/subscription?ordering=id&limit=1000')).body as { id: number }[];
    expect(oldestFirst.map((s) => s.id)).to.deep.equal([...oldestFirst.map((s) => s.id)].sort((a, b) => a - b));
    expect((await admin.get('/api/audit?ordering=secret')).body).to.deep.equal({ ordering: ['Cannot order by "secret".'] });
  });

  it('a subscription takes If-Match and Idempotency-Key as every resource does', async () => {
    const { admin } = suite();
    const sub = await subscribe('https://tagged.example.com/');
    const read = await admin.get(`/api/webhook/subscription/${sub.id}`);
    const tag = read.headers.get('etag')!;
    expect(tag).to.match(/^".+"$/);
    expect((await admin.patch(`/api/webhook/subscription/${sub.id}`, { active: false }, { headers: { 'If-Match': '"stale"' } })).status).to.equal(412);
    const changed = await admin.patch(`/api/webhook/subscription/${sub.id}`, { active: false }, { headers: { 'If-Match': tag } });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.active).to.equal(false);
    expect((await admin.delete(`/api/webhook/subscription/${sub.id}`, { headers: { 'If-Match': tag } })).status).to.equal(412);

    const key = unique('key');
    const body = { url: 'https://once.example.com/', events: ['issue.tracker.created'], secret: SECRET };
    const once = await admin.post('/api/webhook/subscription', body, { headers: { 'Idempotency-Key': key } });
    const again = await admin.post('/api/webhook/subscription', body, { headers: { 'Idempotency-Key': key } });
    expect(once.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(once.body);
  });

  it('keep a subscription its owner’s through the generic routes: a body error on another’s is still 404', async () => {
    const owner = await makeUser({ permissions: ['webhook.add_subscription', 'webhook.change_subscription', 'webhook.view_subscription'] });
    const other = await makeUser({ permissions: ['webhook.change_subscription', 'webhook.view_subscription'] });
    const theirs = await created(owner.client, '/api/webhook/subscription', { url: 'https://own.example.com/', events: ['issue.tracker.created'], secret: SECRET });
    expect(theirs.created_by).to.equal(owner.id);
    expect((await other.client.patch(`/api/webhook/subscription/${theirs.id}`, { events: ['nope'] })).status).to.equal(404);
    expect((await other.client.put(`/api/webhook/subscription/${theirs.id}`, [])).status).to.equal(404);
    expect((await owner.client.patch(`/api/webhook/subscription/${theirs.id}`, { events: ['nope'] })).status).to.equal(400);
  });
});
