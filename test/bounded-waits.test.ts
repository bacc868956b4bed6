/**
 * Bounded waits on PostgreSQL: a statement that runs or waits on a lock too long is cancelled by
 * the server, and a request that finds no free pooled connection in time gives up; each answers
 * 503 and the service serves on. The embedded PGlite serves one process and sets no bounds.
 */
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseBounds } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { lockTable } from './support/locks.js';
import { within } from './support/wait.js';
import { describeWithServer } from './support/database.js';
import { suite, testConfig } from './support/hooks.js';

const PATH = '/api/glossar/entry';
const UNAVAILABLE = { detail: 'Service temporarily unavailable.' };

/** A second instance on the suite's database with `bounds`. */
async function instance(bounds: Partial<DatabaseBounds>): Promise<{ svc: RunningService; client: Client }> {
  const { database, admin } = suite();
  const svc = await startService(
    testConfig(database, { bounds }),
    createLogger('silent'),
    { quiet: true },
  );
  return { svc, client: new Client(svc.url, admin.token) };
}

describeWithServer('bounded waits on the database', 'PGlite has no statement timeouts or pool', function () {
  this.timeout(60_000);
  let locker: Knex;
  let release: () => Promise<void>;
  let table: string;
  let id: number;

  before(async () => {
    const created = await suite().admin.post(PATH, { title: 'bounded', description: 'x' });
    id = created.body.id;
    table = suite().service.app.services.get('glossar/entry')!.resource.table;
    locker = knexFactory({ client: 'pg', connection: suite().database.databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(async () => locker?.destroy());


  /** The service's statements still running or waiting on the table, as the server sees them. */
  async function waitingStatements(): Promise<number> {
    const rows = await locker.raw(`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like ? and pid <> pg_backend_pid()`, [`%${table}%`]);
    return rows.rows[0].n as number;
  }

  it('cancels a statement waiting on a lock past LOCK_TIMEOUT_MS, answering 503', async () => {
    const { svc, client } = await instance({ lockTimeoutMs: 200, statementTimeoutMs: 0 });
    try {
      release = await lockTable(locker, table);
      const started = Date.now();
      const res = await client.get(PATH);
      expect(res.status, res.text).to.equal(503);
      expect(res.body).to.deep.equal(UNAVAILABLE);
      expect(Date.now() - started).to.be.below(3_000);
      expect(await waitingStatements(), 'the statement is cancelled, not left waiting').to.equal(0);
      await release();
      expect((await client.get(`${PATH}/${id}`)).status).to.equal(200);
    } finally {
      await svc.close();
    }
  });

  it('cancels a statement running past STATEMENT_TIMEOUT_MS, answering 503, and writes nothing', async () => {
    const { svc, client } = await instance({ lockTimeoutMs: 0, statementTimeoutMs: 300 });
    try {
      release = await lockTable(locker, table);
      const res = await client.patch(`${PATH}/${id}`, { title: 'never stored' });
      expect(res.status, res.text).to.equal(503);
      expect(res.body).to.deep.equal(UNAVAILABLE);
      expect(await waitingStatements()).to.equal(0);
      await release();
      expect((await client.get(`${PATH}/${id}`)).body.title).to.equal('bounded');
    } finally {
      await svc.close();
    }
  });

  it('gives up waiting for a pooled connection after POOL_ACQUIRE_TIMEOUT_MS, answering 503', async () => {
    const { svc, client } = await instance({ poolSize: 1, acquireTimeoutMs: 300, lockTimeoutMs: 0, statementTimeoutMs: 10_000 });
    try {
      release = await lockTable(locker, table);
      const holding = client.get(PATH); // waits on the lock, holding the only connection
      expect(await within(5_000, async () => (await waitingStatements()) === 1), 'the first request holds the connection').to.equal(true);
      const started = Date.now();
      const starved = await client.get(`${PATH}/${id}`);
      expect(starved.status, starved.text).to.equal(503);
      expect(starved.body).to.deep.equal(UNAVAILABLE);
      expect(Date.now() - started).to.be.below(3_000);
      await release();
      expect((await holding).status).to.equal(200);
      expect((await client.get(`${PATH}/${id}`)).status).to.equal(200);
    } finally {
      await svc.close();
    }
  });
});
