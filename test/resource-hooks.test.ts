/**
 * Hooks of a resource run inside the write's transaction on every write path: a scratch resource
 * (its table made here, served by a second app on the suite's database) whose afterWrite throws on
 * demand. Its throw rolls back the create, PUT, PATCH (a state change too), DELETE, both kinds of
 * batch action and a bulk insert, although the hook saw the written row; validate's errors join
 * the engine's in one 400; the context says what is written.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Principal } from '../engine/auth/users.js';
import { BulkWriter } from '../engine/crud/bulk.js';
import { defineBatch, defineResource, field, type ResourceDeclaration, type WriteOperation } from '../engine/declare/index.js';
import { ValidationError } from '../engine/errors.js';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { Registry, loadDeclarations } from '../engine/registry/registry.js';
import { recordColumns } from '../engine/storage/schema-helpers.js';
import { Client } from './support/client.js';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const TABLE = 'hooktest_note';
const NOTES = '/api/hooktest/note';

/** Operations whose afterWrite throws. */
const refused = new Set<WriteOperation>();
/** What each afterWrite saw: the operation, the titles before and after, and whether the row was there inside the transaction. */
const seen: { operation: WriteOperation; before: unknown; after: unknown; title: unknown; stored: boolean }[] = [];

const note = defineResource({
  module: 'hooktest',
  name: 'note',
  table: TABLE,
  title: 'Note (test only)',
  description: 'A resource with hooks, declared by test/resource-hooks.test.ts.',
  fields: {
    title: field.string({ maxLength: 255, required: true, description: 'Title.' }),
    archived: field.boolean({ default: false, description: 'Archived.' }),
    state: field.state({ values: ['open', 'done'], default: 'open', initial: ['open'], transitions: { open: ['done'] }, description: 'open → done.' }),
  },
  hooks: {
    validate: (ctx) => {
      if (ctx.value('title') === 'invalid') ctx.errors.add('title', 'The hook refuses this title.');
    },
    afterWrite: async (ctx) => {
      const id = (ctx.after ?? ctx.before)!.id as number;
      const stored = (await ctx.trx(TABLE).where({ id }).first('id')) !== undefined;
      seen.push({ operation: ctx.operation, before: ctx.before?.title, after: ctx.after?.title, title: ctx.value('title'), stored });
      if (refused.has(ctx.operation)) throw ValidationError.field('title', `Refused after ${ctx.operation}.`);
    },
  },
});

const batches = [
  defineBatch({ module: 'hooktest', name: 'batch_archive', resource: 'hooktest/note', operation: { kind: 'set', values: { archived: true } }, permission: 'change', resultKey: 'archived', description: 'Archives notes (test only).' }),
  defineBatch({ module: 'hooktest', name: 'batch_delete', resource: 'hooktest/note', operation: { kind: 'delete' }, permission: 'delete', resultKey: 'deleted', description: 'Deletes notes (test only).' }),
];

describe('resource hooks', () => {
  let server: http.Server;
  let client: Client;
  let writer: BulkWriter;

  const count = async (table = TABLE, where: Record<string, string> = {}) => Number(((await suite().service.db(table).where(where).count('* as n')) as { n: string | number }[])[0]!.n);
  const note$ = async (id: number) => (await client.get(`${NOTES}/${id}`)).body;

  /** Runs `write` with `operation`'s afterWrite throwing; the hook saw its row, and the answer is that throw. */
  const refusing = async (operation: WriteOperation, write: () => Promise<{ status: number; body: unknown }>) => {
    refused.add(operation);
    seen.length = 0;
    try {
      const res = await write();
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ title: [`Refused after ${operation}.`] });
      expect(seen.length, 'afterWrite ran').to.be.greaterThan(0);
      for (const s of seen) expect(s.stored, 'the row, as the hook saw it').to.equal(operation !== 'delete');
    } finally {
      refused.clear();
    }
  };

  before(async () => {
    const { db } = suite().service;
    await db.schema.createTable(TABLE, (t) => {
      recordColumns(db, t);
      t.string('title', 255).notNullable();
      t.boolean('archived').notNullable().defaultTo(false);
      t.text('state').notNullable().defaultTo('open');
    });
    const declarations = await loadDeclarations();
    const registry = new Registry({ resources: [...declarations.resources, note], batches: [...declarations.batches, ...batches] });
    const app = createApp({ db, registry, log: createLogger('silent') });
    writer = new BulkWriter(app.services.get('hooktest/note')!);
    server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, suite().admin.token);
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await suite().service.db('state_changes').where({ resource: 'hooktest/note' }).delete();
    await suite().service.db.schema.dropTable(TABLE);
  });

  it('gives afterWrite the operation, the record before and after, and the values after', async () => {
    seen.length = 0;
    const made = await created(client, NOTES, { title: 'one' });
    await client.put(`${NOTES}/${made.id}`, { title: 'two' });
    await client.patch(`${NOTES}/${made.id}`, { archived: true });
    await client.delete(`${NOTES}/${made.id}`);
    expect(seen).to.deep.equal([
      { operation: 'create', before: undefined, after: 'one', title: 'one', stored: true },
      { operation: 'replace', before: 'one', after: 'two', title: 'two', stored: true },
      { operation: 'update', before: 'two', after: 'two', title: 'two', stored: true },
      { operation: 'delete', before: 'two', after: undefined, title: 'two', stored: false },
    ]);
  });

  it('rolls back a create whose afterWrite throws, its state log too', async () => {
    const [notes, moves] = [await count(), await count('state_changes', { resource: 'hooktest/note' })];
    await refusing('create', () => client.post(NOTES, { title: 'never stored' }));
    expect([await count(), await count('state_changes', { resource: 'hooktest/note' })]).to.deep.equal([notes, moves]);
  });

  it('rolls back a PUT, a PATCH and a state change whose afterWrite throws', async () => {
    const made = await created(client, NOTES, { title: 'kept' });
    await refusing('replace', () => client.put(`${NOTES}/${made.id}`, { title: 'replaced' }));
    await refusing('update', () => client.patch(`${NOTES}/${made.id}`, { title: 'changed' }));
    await refusing('update', () => client.patch(`${NOTES}/${made.id}`, { state: 'done' }));
    expect(await note$(made.id)).to.deep.equal(made);
    expect(((await client.get(`${NOTES}/${made.id}/transitions`)).body as { to: string }[]).map((m) => m.to)).to.deep.equal(['open']);
  });

  it('rolls back a delete whose afterWrite throws', async () => {
    const made = await created(client, NOTES, { title: 'stays' });
    await refusing('delete', () => client.delete(`${NOTES}/${made.id}`));
    expect(await note$(made.id)).to.deep.equal(made);
  });

  it('rolls back a batch action, change or delete, when the afterWrite of one of its records throws', async () => {
    const notes = [await created(client, NOTES, { title: 'a' }), await created(client, NOTES, { title: 'b' })];
    const ids = { note_ids: notes.map((n) => n.id) };
    await refusing('update', () => client.post('/api/hooktest/batch_archive', ids));
    await refusing('delete', () => client.post('/api/hooktest/batch_delete', ids));
    for (const n of notes) expect(await note$(n.id)).to.deep.equal(n);
    seen.length = 0;
    expect((await client.post('/api/hooktest/batch_archive', ids)).body).to.deep.equal({ archived: 2 });
    expect(seen.map((s) => s.operation)).to.deep.equal(['update', 'update']);
  });

  it('rolls back a bulk insert when the afterWrite of one of its records throws, naming that record', async () => {
    const admin: Principal = { id: suite().adminId, username: 'admin', isSuperuser: true, permissions: new Set(), groupIds: [] };
    const before = await count();
    refused.add('create');
    try {
      const err = await writer.insert(admin, [{ body: { title: 'x' } }, { body: { title: 'y' } }]).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).errors).to.deep.equal({ '0.title': ['Refused after create.'] });
    } finally {
      refused.clear();
    }
    expect(await count()).to.equal(before);
    const bad = await writer.insert(admin, [{ body: { title: 'fine' } }, { body: { title: 'invalid' } }]).catch((e: unknown) => e);
    expect((bad as ValidationError).errors).to.deep.equal({ '1.title': ['The hook refuses this title.'] });
  });

  it("reports validate's errors together with the engine's, in one 400, and writes nothing", async () => {
    seen.length = 0;
    const res = await client.post(NOTES, { title: 'invalid', archived: 'maybe' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ archived: ['Must be a valid boolean.'], title: ['The hook refuses this title.'] });
    const made = await created(client, NOTES, { title: 'valid' });
    expect((await client.patch(`${NOTES}/${made.id}`, { title: 'invalid' })).body).to.deep.equal({ title: ['The hook refuses this title.'] });
    expect(seen.map((s) => s.operation)).to.deep.equal(['create']);
  });

  describe('example states', () => {
    const bootWith = (exampleStates: Record<string, string[]>) => () =>
      new Registry({ resources: [{ ...note, exampleStates } as ResourceDeclaration], batches: [] });

    it('must name a state field, with declared states, starting with an initial one', () => {
      expect(bootWith({ state: ['open', 'done'] })).to.not.throw();
      expect(bootWith({ title: ['open'] })).to.throw('Resource "hooktest/note": exampleStates names "title", which is not a state field.');
      expect(bootWith({ state: ['done'] })).to.throw('exampleStates of "state" must list declared states, the first an initial one.');
      expect(bootWith({ state: ['open', 'closed'] })).to.throw('exampleStates of "state" must list declared states, the first an initial one.');
    });
  });
});
