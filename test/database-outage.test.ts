/**
 * The database goes away under writers, on a PostgreSQL server of the test's own: frozen
 * (SIGSTOP, the case no socket error reveals) and stopped. While it is away every request answers
 * within the bounds, 503 where it needs the database, and `/readyz` says 503 within 2 s; when it is
 * back the same service serves again without a restart, and every write it acknowledged is stored
 * (and nothing it refused).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createToken } from '../engine/auth/tokens.js';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { testConfig } from './support/hooks.js';
import { describeWithOwnPostgres, OwnPostgres } from './support/own-postgres.js';
import { until } from './support/wait.js';

const PATH = '/api/glossar/entry';
const UNAVAILABLE = { detail: 'Service temporarily unavailable.' };
/** Low bounds, so that an outage of seconds shows them. */
const BOUNDS = { statementTimeoutMs: 1_000, lockTimeoutMs: 500, acquireTimeoutMs: 1_000, poolSize: 4 };
/** Loose, for a loaded machine: well under the outage, far above the bounds. */
const SLOWEST_ANSWER_MS = 6_000;

interface Outcome {
  title: string;
  status: number;
  ms: number;
  id?: number;
  body: unknown;
}

/** Writers creating entries titled `<tag>-…` until `stop`, each answer recorded with its time. */
function writers(client: Client, tag: string, count: number) {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: count }, async (_, w) => {
    for (let i = 0; running; i++) {
      const started = Date.now();
      const title = `${tag}-${w}-${i}`;
      const res = await client.post(PATH, { title, description: 'outage' });
      outcomes.push({ title, status: res.status, ms: Date.now() - started, id: res.status === 201 ? res.body.id : undefined, body: res.body });
      if (res.status !== 201) await sleep(50);
    }
  });
  return {
    outcomes,
    since: (n: number) => outcomes.slice(n),
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

async function readyz(client: Client): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await client.get('/readyz');
  return { status: res.status, ms: Date.now() - started };
}

const untilReady = (client: Client) => until('the service to be ready again', async () => ((await readyz(client)).status === 200 ? true : undefined));

describeWithOwnPostgres('a database outage under writers (issue 13.1)', function () {
  this.timeout(90_000);
  let pg: OwnPostgres;
  let svc: RunningService;
  let client: Client;
  let dataDir: string;

  before(async () => {
    pg = await OwnPostgres.init();
    await pg.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-outage-'));
    svc = await startService(testConfig({ databaseUrl: pg.url(), dataDir }, { bounds: BOUNDS }), createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { quiet: true });
    const admin = (await svc.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    client = new Client(svc.url, (await createToken(svc.db, admin.id, 'outage')).key);
  });
  after(async () => {
    await svc?.close();
    await pg?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The outage `away` under four writers; the answers while away and the whole run's. */
  async function outage(tag: string, away: () => unknown, back: () => unknown): Promise<{ whileAway: Outcome[]; all: Outcome[] }> {
    const load = writers(client, tag, 4);
    try {
      await sleep(1_000);
      const before = load.outcomes.length;
      await away();
      await sleep(1_000);
      const probe = await readyz(client);
      expect(probe.status, 'readyz while away').to.equal(503);
      expect(probe.ms, 'readyz answers within 2 s').to.be.below(2_000);
      await sleep(5_000);
      const whileAway = load.since(before);
      await back();
      await untilReady(client);
      const resumed = load.outcomes.length;
      await sleep(1_000);
      const all = await load.stop();
      expect(all.slice(resumed).some((o) => o.status === 201), 'writes succeed again without a restart').to.equal(true);
      return { whileAway, all };
    } finally {
      // a failed expectation must not leave the writers posting to a service the suite then closes
      await load.stop();
    }
  }

  /**
   * Every acknowledged write is stored. A write answered 503 has an unknown outcome: a statement
   * the server had received before it went away may still have committed, though its client got
   * no answer (as with any database, a lost answer is not a lost write). Nothing else is stored.
   */
  async function expectAcknowledgedStored(tag: string, all: Outcome[]): Promise<void> {
    const table = svc.app.services.get('glossar/entry')!.resource.table;
    const stored = new Set((await svc.db(table).where('title', 'like', `${tag}-%`).pluck('title')) as string[]);
    const acknowledged = all.filter((o) => o.status === 201);
    expect(acknowledged.length).to.be.above(0);
    expect(acknowledged.filter((o) => !stored.has(o.title)), 'acknowledged but lost').to.deep.equal([]);
    const unknown = new Set(all.filter((o) => o.status === 503).map((o) => o.title));
    const extra = [...stored].filter((t) => !acknowledged.some((o) => o.title === t));
    expect(extra.filter((t) => !unknown.has(t)), 'stored but never asked for or refused outright').to.deep.equal([]);
    expect(extra.length, 'at most the writes in flight when it went away').to.be.at.most(4);
  }

  function expectBoundedAnswers(whileAway: Outcome[]): void {
    expect(whileAway.length, 'requests are answered while the database is away').to.be.above(3);
    for (const o of whileAway) {
      expect([201, 503], JSON.stringify(o)).to.include(o.status);
      if (o.status === 503) expect(o.body).to.deep.equal(UNAVAILABLE);
      expect(o.ms, 'answered within the bounds').to.be.below(SLOWEST_ANSWER_MS);
    }
    expect(whileAway.filter((o) => o.status === 503).length).to.be.above(0);
  }

  it('stopped and started again: fast 503s, readyz 503, recovery, no acknowledged write lost', async () => {
    const { whileAway, all } = await outage(
      'stopped',
      () => pg.stop(),
      () => pg.start(),
    );
    expectBoundedAnswers(whileAway);
    await expectAcknowledgedStored('stopped', all);
  });

  it('frozen (SIGSTOP) and thawed: bounded 503s, readyz 503, recovery, no acknowledged write lost', async () => {
    const { whileAway, all } = await outage(
      'frozen',
      () => pg.signal('SIGSTOP'),
      () => pg.signal('SIGCONT'),
    );
    expectBoundedAnswers(whileAway);
    await expectAcknowledgedStored('frozen', all);
  });
});
