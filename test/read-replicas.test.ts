/**
 * DATABASE_REPLICA_URLS on a PostgreSQL 15 primary and a streaming replica of the test's own. Which
 * server answered a read is shown by pausing the replica's replay: a record written since then
 * exists on the primary only, so a 404 for it can only come from the replica, and a 200 while
 * replay is paused only from the primary.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import knexFactory from 'knex';
import pg from 'pg';
import { createToken } from '../engine/auth/tokens.js';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { created, unique } from './support/fixtures.js';
import { testConfig } from './support/hooks.js';
import { describeWithOwnPostgres, OwnPostgres } from './support/own-postgres.js';
import { within } from './support/wait.js';

const TRACKERS = '/api/issue/tracker';
/** How often the service tries a down replica again (REPLICA_RETRY_MS): short, so the test is. */
const RETRY_MS = 200;

/** Runs `sql` on `server` over a connection of its own (one a restart would have broken is never reused). */
async function query(server: OwnPostgres, sql: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describeWithOwnPostgres('read replicas (DATABASE_REPLICA_URLS)', function () {
  this.timeout(120_000);
  let primary: OwnPostgres | undefined;
  let replica: OwnPostgres | undefined;
  let service: RunningService | undefined;
  let admin: Client;

  /** Waits until the replica has replayed everything written so far. */
  const caughtUp = async () => {
    const [{ lsn }] = (await query(primary!, 'select pg_current_wal_lsn()::text as lsn')) as [{ lsn: string }];
    const replayed = async () => (await query(replica!, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`))[0]!.done === true;
    expect(await within(10_000, replayed), 'the replica caught up').to.equal(true);
  };
  /** Pauses the replica's replay once it has caught up. */
  const pauseReplay = async () => {
    await caughtUp();
    await query(replica!, 'select pg_wal_replay_pause()');
    expect(await within(10_000, async () => (await query(replica!, 'select pg_get_wal_replay_pause_state() as s'))[0]!.s === 'paused')).to.equal(true);
  };
  const status = async (id: number) => (await admin.get(`${TRACKERS}/${id}`)).status;
  const listed = async (id: number) => ((await admin.get(TRACKERS)).body as { id: number }[]).some((t) => t.id === id);
  /** A tracker written on the primary. */
  const tracker = async (): Promise<number> => (await created(admin, TRACKERS, { title: unique('replicated') })).id as number;

  before(async () => {
    primary = await OwnPostgres.init();
    await primary.start();
    replica = await OwnPostgres.replicaOf(primary);
    await replica.start();
    const config = testConfig({ databaseUrl: primary.url(), dataDir: primary.root }, { replicaUrls: [replica.url()], replicaRetryMs: RETRY_MS });
    service = await startService(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { quiet: true });
    const { id } = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    admin = new Client(service.url, (await createToken(service.db, id, 'tests')).key);
  });

  after(async () => {
    await service?.close();
    await replica?.remove();
    await primary?.remove();
  });

  it('reads lists and details from the replica; writes, their reads and authentication from the primary', async () => {
    await pauseReplay();
    const id = await tracker();
    // answered by the replica, which has not replayed the write (the replica is in use once its first probe answers)
    expect(await within(10_000, async () => (await status(id)) === 404), 'a detail from the replica').to.equal(true);
    for (let i = 0; i < 3; i++) expect(await status(id)).to.equal(404);
    expect(await listed(id), 'a list from the replica').to.equal(false);
    // a write reads the record it changes on the primary, inside its transaction
    expect((await admin.patch(`${TRACKERS}/${id}`, { title: unique('changed') })).status).to.equal(200);
    // a token made since the pause is known: authentication reads the primary
    const fresh = await admin.post('/api/auth/tokens', { name: unique('fresh') });
    expect(fresh.status).to.equal(201);
    expect((await admin.as(fresh.body.token as string).get(TRACKERS)).status).to.equal(200);

    await query(replica!, 'select pg_wal_replay_resume()');
    expect(await within(10_000, async () => (await status(id)) === 200), 'the write visible on the replica').to.equal(true);
    expect(await listed(id)).to.equal(true);
    expect(await query(replica!, `select id from issue_tracker where id = ${id}`)).to.have.length(1);
  });

  it('reads from the primary while the replica is down, with no error, and from the replica again once it answers', async () => {
    const before = await tracker();
    await replica!.stop();
    const during = await tracker();
    for (const id of [before, during]) {
      expect(await status(id)).to.equal(200);
      expect(await listed(id)).to.equal(true);
    }
    const answers = await Promise.all(Array.from({ length: 10 }, () => admin.get(TRACKERS)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(200));

    await replica!.start();
    await pauseReplay();
    const after = await tracker();
    // a 404 only the replica can give: it is read from again, within a few retry intervals
    expect(await within(10_000, async () => (await status(after)) === 404), 'the replica in use again').to.equal(true);
    await query(replica!, 'select pg_wal_replay_resume()');
  });

  it('answers 503, not 500, to a write that reaches a server still read-only (a failover under way)', async () => {
    await caughtUp();
    const standby = knexFactory({ client: 'pg', connection: replica!.url(), pool: { min: 0, max: 2 } });
    const server = http.createServer(createApp({ db: standby, registry: await loadRegistry(), log: createLogger('silent') }).koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, admin.token);
      expect((await client.get(TRACKERS)).status).to.equal(200);
      const write = await client.post(TRACKERS, { title: unique('read-only') });
      expect([write.status, write.body]).to.deep.equal([503, { detail: 'Service temporarily unavailable.' }]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await standby.destroy();
    }
  });
});
