/**
 * `node dist/engine/main.js` with bad settings and in bad surroundings: each ends in one line on
 * stderr naming what to fix, exit code 1, no stack, and bad settings before the database is
 * opened. Behind a trusted HTTPS proxy, Secure cookies work (`TRUST_PROXY`), checked over HTTP.
 */
import fs from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import knexFactory from 'knex';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { run, startServiceProcess, type Run } from './support/processes.js';

const start = (db: TestDatabase, env: Record<string, string>) => run('engine/main.js', [], db, env, /"msg":"listening"/);

/** The one line a failed start printed on stderr, after checking it printed no more there and exited 1. */
function failure(res: Run): string {
  expect(res.code, res.stdout + res.stderr).to.equal(1);
  expect(res.stderr).to.match(/^[^\n]+\n$/);
  return res.stderr.trim();
}

/** Whether the test database is as it was created: no table, no file. */
async function untouched(db: TestDatabase): Promise<boolean> {
  if (!db.databaseUrl) return fs.readdirSync(db.dataDir).length === 0;
  const knex = knexFactory({ client: 'pg', connection: db.databaseUrl });
  try {
    const { rows } = await knex.raw(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
    return rows[0].n === 0;
  } finally {
    await knex.destroy();
  }
}

/** A server holding a free port on 127.0.0.1. */
function holdPort(): Promise<net.Server & { port: number }> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })));
  });
}
const release = (server: net.Server) => new Promise((resolve) => server.close(resolve));

describe('start-up settings and failures', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase()));
  after(async () => db.drop());

  it('names each bad setting, its value and what is expected, before opening the database', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'abc' }, 'Invalid setting PORT="abc": expected a port number from 0 to 65535 (0: any free port).'],
      [{ PORT: '70000' }, 'Invalid setting PORT="70000": expected a port number from 0 to 65535 (0: any free port).'],
      [{ HOST: 'not a host' }, 'Invalid setting HOST="not a host": expected a host name or IP address to listen on.'],
      [{ LOG_LEVEL: 'loud' }, 'Invalid setting LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent.'],
      [{ SECURE_COOKIES: 'maybe' }, 'Invalid setting SECURE_COOKIES="maybe": expected true or false.'],
      [{ TRUST_PROXY: 'sometimes' }, 'Invalid setting TRUST_PROXY="sometimes": expected true or false.'],
      [{ MAX_LIST_ROWS: '0' }, 'Invalid setting MAX_LIST_ROWS="0": expected a number of records from 1 to 999999999 (unset: no cap).'],
      [{ MAX_LIST_ROWS: 'lots' }, 'Invalid setting MAX_LIST_ROWS="lots": expected a number of records from 1 to 999999999 (unset: no cap).'],
      [{ LISTS_PER_USER: 'many' }, 'Invalid setting LISTS_PER_USER="many": expected a number of lists from 0 to 9999 (0: no limit).'],
      [{ PRINCIPAL_CACHE_MS: '-1' }, 'Invalid setting PRINCIPAL_CACHE_MS="-1": expected a whole number of milliseconds (0: no cache).'],
      [{ PRINCIPAL_CACHE_MS: '5s' }, 'Invalid setting PRINCIPAL_CACHE_MS="5s": expected a whole number of milliseconds (0: no cache).'],
      [{ DATABASE_URL: 'localhost:5432/bms' }, 'Invalid setting DATABASE_URL="localhost:5432/bms": expected a PostgreSQL URL such as postgres://user:password@host:5432/database.'],
      // the password is not shown
      [{ DATABASE_URL: 'mysql://app:s3cret@db/bms' }, 'Invalid setting DATABASE_URL="mysql://app:***@db/bms": expected a PostgreSQL URL such as postgres://user:password@host:5432/database.'],
      [{ SHUTDOWN_TIMEOUT_MS: '10s' }, 'Invalid setting SHUTDOWN_TIMEOUT_MS="10s": expected a whole number of milliseconds.'],
      [
        { CORS_ORIGINS: 'https://app.example.com/path' },
        'Invalid setting CORS_ORIGINS="https://app.example.com/path": expected origins separated by commas, each like https://app.example.com (scheme, host, optional port; no path).',
      ],
      [{ WEB_CONCURRENCY: '0' }, 'Invalid setting WEB_CONCURRENCY="0": expected a number of worker processes from 1 to 64.'],
      [{ WEB_CONCURRENCY: 'two' }, 'Invalid setting WEB_CONCURRENCY="two": expected a number of worker processes from 1 to 64.'],
      [{ WEB_CONCURRENCY: '65' }, 'Invalid setting WEB_CONCURRENCY="65": expected a number of worker processes from 1 to 64.'],
      // each replica's password is hidden too
      [
        { DATABASE_REPLICA_URLS: 'postgres://app:s3cret@r1/bms, mysql://app:s3cret@r2/bms' },
        'Invalid setting DATABASE_REPLICA_URLS="postgres://app:***@r1/bms, mysql://app:***@r2/bms": expected PostgreSQL URLs separated by commas.',
      ],
      [{ DATABASE_REPLICA_URLS: 'postgres://r1/bms,' }, 'Invalid setting DATABASE_REPLICA_URLS="postgres://r1/bms,": expected PostgreSQL URLs separated by commas.'],
      [{ REPLICA_RETRY_MS: '50' }, 'Invalid setting REPLICA_RETRY_MS="50": expected a whole number of milliseconds from 100 to 3600000.'],
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
        'Invalid setting OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318": expected the http or https URL of an OTLP/HTTP receiver, such as http://collector:4318.',
      ],
      [
        { DATABASE_URL: '', BMS_DATA_DIR: '/etc/passwd/data' },
        'Invalid setting BMS_DATA_DIR="/etc/passwd/data": expected a directory this user can write to (/etc/passwd is not), or set DATABASE_URL.',
      ],
    ];
    for (const [env, line] of cases) expect(failure(await start(db, env)), JSON.stringify(env)).to.equal(line);
    const several = await start(db, { PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(several.code).to.equal(1);
    expect(several.stderr.trim().split('\n')).to.deep.equal([
      'Invalid setting PORT="abc": expected a port number from 0 to 65535 (0: any free port).',
      'Invalid setting LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent.',
    ]);
    expect(await untouched(db)).to.equal(true);
  });

  it('refuses SECURE_COOKIES=true without TRUST_PROXY=true: the service itself speaks plain HTTP', async () => {
    expect(failure(await start(db, { SECURE_COOKIES: 'true' }))).to.equal(
      'SECURE_COOKIES=true needs TRUST_PROXY=true: the service itself speaks plain HTTP, so Secure cookies work only behind an HTTPS proxy that sends X-Forwarded-Proto.',
    );
    expect(await untouched(db)).to.equal(true);
  });

  it('refuses WEB_CONCURRENCY above 1 on the embedded database, which one process alone may open', async () => {
    expect(failure(await start(db, { DATABASE_URL: '', WEB_CONCURRENCY: '2' }))).to.equal(
      'WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database (BMS_DATA_DIR) can be opened by one process only.',
    );
    expect(await untouched(db)).to.equal(true);
  });

  it('refuses read replicas on the embedded database, which has none', async () => {
    expect(failure(await start(db, { DATABASE_URL: '', DATABASE_REPLICA_URLS: 'postgres://replica/bms' }))).to.equal(
      'DATABASE_REPLICA_URLS needs DATABASE_URL: replicas copy a PostgreSQL server, not the embedded database.',
    );
    expect(await untouched(db)).to.equal(true);
  });

  it('reports a database it cannot reach in one line, at once', async () => {
    const held = await holdPort();
    const free = held.port;
    await release(held);
    const began = Date.now();
    const line = failure(await start(db, { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${free}/bms` }));
    expect(line).to.equal(`Cannot open the database at postgres://app:***@127.0.0.1:${free}/bms (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${free}.`);
    expect(Date.now() - began).to.be.below(10_000);
  });

  it('reports a port already in use in one line naming HOST:PORT', async () => {
    const taken = await holdPort();
    try {
      const line = failure(await start(db, { PORT: String(taken.port) }));
      expect(line).to.equal(
        `Cannot listen on 127.0.0.1:${taken.port} (HOST, PORT): the address is already in use (another process listens there; stop it or choose another PORT).`,
      );
    } finally {
      await release(taken);
    }
  });

  describe('behind a trusted HTTPS proxy (SECURE_COOKIES=true, TRUST_PROXY=true)', () => {
    it('signs in over X-Forwarded-Proto: https with Secure cookies, and refuses plain HTTP with 403', async () => {
      const made = await run('engine/cli/manage.js', ['createsuperuser', '--username', 'proxied'], db, { BMS_SUPERUSER_PASSWORD: 'behind-proxy-1' });
      expect(made.code, made.stderr).to.equal(0);
      const svc = await startServiceProcess(db, { SECURE_COOKIES: 'true', TRUST_PROXY: 'true' });
      try {
        const login = (headers: Record<string, string>) =>
          fetch(`${svc.url}/api/auth/login`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', ...headers },
            body: JSON.stringify({ username: 'proxied', password: 'behind-proxy-1' }),
          });
        const https = await login({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.7' });
        expect(https.status, await https.clone().text()).to.equal(200);
        const cookies = https.headers.getSetCookie();
        expect(cookies.map((c) => c.split('=')[0]).sort()).to.deep.equal(['csrftoken', 'sessionid']);
        for (const cookie of cookies) expect(cookie, cookie).to.match(/;\s*secure\b/i);
        // the session works on the next request through the proxy
        const sessionCookie = cookies.map((c) => c.split(';')[0]).join('; ');
        const me = await fetch(`${svc.url}/api/auth/me`, { headers: { Cookie: sessionCookie, 'X-Forwarded-Proto': 'https' } });
        expect(me.status).to.equal(200);
        expect(((await me.json()) as { username: string }).username).to.equal('proxied');

        const plain = await login({});
        expect(plain.status).to.equal(403);
        expect(await plain.json()).to.deep.equal({ detail: 'Sessions need HTTPS: this service sets its cookies Secure.' });
        expect(plain.headers.getSetCookie()).to.deep.equal([]);
      } finally {
        await svc.stop();
      }
    });
  });
});
