/**
 * SIGTERM with slow requests in flight and an idle kept-alive connection open (issue 13.2): the
 * service stops accepting at once, closes the idle connection at once, lets the slow requests
 * finish with `Connection: close`, and exits 0 within a second of the last one; past
 * SHUTDOWN_TIMEOUT_MS it cuts what is left and exits 0 all the same.
 */
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { lockTable } from './support/locks.js';
import { startServiceProcess, type ServiceProcess } from './support/processes.js';

const TABLE = 'glossar_entry';
const PATH = '/api/glossar/entry';

interface Answer {
  status?: number;
  connection?: string;
  error?: string;
  at: number;
}

/** A GET on a connection of its own, resolved with when and how it ended. */
function slowGet(url: string, token: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.get(`${url}${PATH}`, { agent: false, headers: { Authorization: `Token ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, at: Date.now() }));
      res.on('error', (err) => resolve({ error: err.message, at: Date.now() }));
    });
    req.on('error', (err) => resolve({ error: err.message, at: Date.now() }));
  });
}

/** A kept-alive connection after one answered request; resolves `closed` with when the server closed it. */
async function idleConnection(url: string): Promise<{ closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    socket.once('data', () => resolve());
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
  return { closed };
}

const refusesConnections = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });

async function refusedWithin(url: string, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) if (await refusesConnections(url)) return true;
  return false;
}

describeWithServer('graceful shutdown on SIGTERM', 'slow requests are held by a lock taken from another connection', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let locker: Knex;
  /** The first start's token (later starts on the same database print none). */
  let token: string;

  async function start(env: Record<string, string>): Promise<ServiceProcess> {
    const service = await startServiceProcess(db, env);
    token ??= service.token!;
    return service;
  }

  before(async () => {
    db = await createTestDatabase();
    locker = knexFactory({ client: 'pg', connection: db.databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(async () => {
    await locker?.destroy();
    await db?.drop();
  });

  /**
   * Runs `body` with the table locked (`release` lifts the lock early); lifts it and kills what is
   * left of `service` in every case.
   */
  async function whileLocked(service: ServiceProcess, body: (release: () => Promise<void>) => Promise<void>): Promise<void> {
    const lift = await lockTable(locker, TABLE);
    let lifted = false;
    const release = async () => {
      if (lifted) return;
      lifted = true;
      await lift();
    };
    try {
      await body(release);
    } finally {
      await release();
      service.child.kill('SIGKILL');
    }
  }

  /** Waits until `count` statements of the service wait on the lock. */
  async function waiting(service: ServiceProcess, count: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const rows = await locker.raw(`select count(*)::int as n from pg_locks where not granted and relation = ?::regclass`, [TABLE]);
      if ((rows.rows[0].n as number) >= count) return;
      await sleep(50);
    }
    throw new Error(`${count} requests never waited on the lock: ${service.output()}`);
  }

  it('finishes requests in flight with Connection: close, closes idle connections at once, exits 0 within a second of the last', async () => {
    const service = await start({ LOCK_TIMEOUT_MS: '0' });
    const idle = await idleConnection(service.url);
    await whileLocked(service, async (release) => {
      const answers = Array.from({ length: 3 }, () => slowGet(service.url, token));
      await waiting(service, 3);
      const stopped = Date.now();
      service.child.kill('SIGTERM');
      expect((await idle.closed) - stopped, 'the idle connection is closed at once').to.be.below(2_000);
      expect(await refusedWithin(service.url, 2_000), 'no new connection is accepted').to.equal(true);
      await sleep(1_000);
      await release();
      const done = await Promise.all(answers);
      for (const a of done) expect(a, JSON.stringify(a)).to.include({ status: 200, connection: 'close' });
      const code = await service.exited;
      const exited = Date.now();
      expect(code).to.equal(0);
      expect(exited - Math.max(...done.map((a) => a.at)), 'exits within a second of the last answer').to.be.below(1_000);
      expect(service.output()).to.include('stopping: finishing requests in flight');
    });
  });

  it('waits for the handlers of requests whose clients have gone: their writes end, the pool outlives them', async () => {
    // one connection: the read holds it on the lock, the write waits for it
    const service = await start({ LOCK_TIMEOUT_MS: '0', DATABASE_POOL_SIZE: '1' });
    await whileLocked(service, async (release) => {
      const title = `left before the answer ${Date.now()}`;
      const gone = [http.get(`${service.url}${PATH}`, { agent: false, headers: { Authorization: `Token ${token}` } })];
      await waiting(service, 1);
      const body = JSON.stringify({ title, description: 'shutdown' });
      const write = http.request(`${service.url}${PATH}`, { method: 'POST', agent: false, headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } });
      write.end(body);
      gone.push(write);
      await sleep(500);
      for (const req of gone) {
        req.on('error', () => undefined);
        req.destroy();
      }
      service.child.kill('SIGTERM');
      await sleep(500);
      await release();
      expect(await service.exited).to.equal(0);
      expect(service.output(), 'no handler met a closed pool').not.to.include('unhandled error');
      const stored = await locker(TABLE).where({ title }).count<{ count: string }[]>({ count: '*' });
      expect(Number(stored[0]!.count), 'the write whose client left was finished').to.equal(1);
    });
  });

  it('past SHUTDOWN_TIMEOUT_MS cuts the requests still in flight and exits 0', async () => {
    const service = await start({ LOCK_TIMEOUT_MS: '0', SHUTDOWN_TIMEOUT_MS: '300' });
    await whileLocked(service, async () => {
      const answer = slowGet(service.url, token);
      await waiting(service, 1);
      const stopped = Date.now();
      expect(await service.stop()).to.equal(0);
      expect(Date.now() - stopped, 'does not wait for the held request').to.be.below(5_000);
      expect((await answer).error, 'the held request was cut').to.be.a('string');
    });
  });
});
