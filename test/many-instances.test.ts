/**
 * Two instances (`node dist/engine/main.js`, each a process of its own on its own port) on one
 * database, as behind a load balancer: both start on the empty database at once and migrate it
 * together, and whatever one instance knows of sessions and tokens, the other knows too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory from 'knex';
import { migrateLatest, migrationsDirectory } from '../engine/storage/migrate.js';
import { SessionClient } from './support/browser-session.js';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { unique } from './support/fixtures.js';
import { startServiceProcess, type ServiceProcess } from './support/processes.js';
import { within } from './support/wait.js';

/** The migrations' file names. */
const migrations = () => fs.readdirSync(migrationsDirectory).filter((f) => f.endsWith('.js'));

describeWithServer('many instances on one database', 'several processes share a database server', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let instances: ServiceProcess[] = [];
  /** The instance that created the first admin, and the other one. */
  let first: ServiceProcess;
  let other: ServiceProcess;

  before(async () => {
    db = await createTestDatabase();
    // both at once on the empty database: the migrations and the first admin happen once
    instances = await Promise.all([startServiceProcess(db), startServiceProcess(db)]);
    const bootstrapped = instances.filter((i) => i.token);
    expect(bootstrapped, 'instances that created the first admin').to.have.length(1);
    first = bootstrapped[0]!;
    other = instances.find((i) => i !== first)!;
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await db?.drop();
  });

  it('migrated the database once, though both started on it together', async () => {
    const expected = migrations();
    const knex = knexFactory({ client: 'pg', connection: db.databaseUrl, pool: { min: 0, max: 1 } });
    try {
      const applied = ((await knex('knex_migrations').select('name')) as { name: string }[]).map((m) => path.basename(m.name));
      expect(applied.sort()).to.deep.equal(expected.sort());
      expect((await knex('users').count({ n: '*' }))[0]!.n).to.equal('1');
    } finally {
      await knex.destroy();
    }
  });

  it('two migrators on an empty database take turns: one applies everything, the other then finds nothing to do', async () => {
    const empty = await createTestDatabase();
    // in one process they start within a millisecond, where Knex alone races to create its own tables
    const migrators = [0, 1].map(() => knexFactory({ client: 'pg', connection: empty.databaseUrl, pool: { min: 0, max: 2 } }));
    try {
      const applied = await Promise.all(migrators.map(migrateLatest));
      expect(applied.map((names) => names.length).sort()).to.deep.equal([0, migrations().length]);
    } finally {
      await Promise.all(migrators.map((m) => m.destroy()));
      await empty.drop();
    }
  });

  it('a session signed in on one instance is used on the other, and ends on both', async () => {
    const password = /password: (\S+)/.exec(first.output())![1]!;
    const here = new SessionClient(first.url);
    expect((await here.login('admin', password)).status).to.equal(200);
    const there = here.withCookies(other.url);
    expect((await there.request('GET', '/api/auth/me')).body.username).to.equal('admin');
    const write = await there.request('POST', '/api/issue/tracker', { body: { title: unique('elsewhere') }, csrf: true });
    expect(write.status).to.equal(201);
    expect((await here.request('GET', `/api/issue/tracker/${write.body.id}`)).status).to.equal(200);

    expect((await here.request('POST', '/api/auth/logout', { csrf: true })).status).to.equal(204);
    expect((await there.request('GET', '/api/auth/me')).status).to.equal(401);
  });

  it('a token revoked on one instance is refused on the other', async () => {
    const admin = new Client(first.url, first.token!);
    const made = await admin.post('/api/auth/tokens', { name: unique('shared') });
    expect(made.status).to.equal(201);
    const elsewhere = new Client(other.url, made.body.token as string);
    // twice, so the other instance serves it from its principal cache
    for (let i = 0; i < 2; i++) expect((await elsewhere.get('/api/auth/me')).status).to.equal(200);

    expect((await admin.delete(`/api/auth/tokens/${made.body.id}`)).status).to.equal(204);
    // the notification's way to the other process, not the cache's time to live
    expect(await within(10_000, async () => (await elsewhere.get('/api/auth/me')).status === 401), 'refused on the other instance').to.equal(true);
  });
});
