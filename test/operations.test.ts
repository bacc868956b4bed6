/** Health endpoints, request ids, and logs that never carry credentials. */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../engine/http/app.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import knexFactory, { type Knex } from 'knex';
import { Client } from './support/client.js';

describe('operations', () => {
  it('/healthz and /readyz answer without credentials', async () => {
    const { admin } = suite();
    const health = await admin.get('/healthz', { token: null });
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await admin.get('/readyz', { token: null });
    expect(ready.status).to.equal(200);
  });

  /** An app of its own on `db`, answering `check` with the admin's token; `db` is destroyed after. */
  async function onDatabase(db: Knex, check: (client: Client) => Promise<void>): Promise<void> {
    const app = createApp({ db, registry: await loadRegistry(), log: pino({ level: 'silent' }) });
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await check(new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, suite().admin.token));
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await db.destroy();
    }
  }

  it('answers 503 when the database is unreachable, and /readyz says so', async () => {
    const dead = knexFactory({ client: 'pg', connection: 'postgres://postgres@127.0.0.1:1/none', pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000 });
    await onDatabase(dead, async (client) => {
      const res = await client.get('/api/issue/issue');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal({ detail: 'Service temporarily unavailable.' });
      expect((await client.get('/readyz')).status).to.equal(503);
      expect((await client.get('/healthz')).status).to.equal(200);
    });
  });

  it('answers 503 when the database server accepts connections but never answers (pg: "timeout expired")', async () => {
    // a frozen server: the kernel accepts for it, nothing ever replies
    const accepted = new Set<net.Socket>();
    const silent = net.createServer((socket) => void accepted.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/none`;
    // the pool waits longer than pg's connect timeout, so pg's own timeout is what fails the request
    const frozen = knexFactory({ client: 'pg', connection: { connectionString: url, connectionTimeoutMillis: 300 }, pool: { min: 0, max: 1, acquireTimeoutMillis: 20_000 } });
    try {
      await onDatabase(frozen, async (client) => {
        const started = Date.now();
        const res = await client.get('/api/issue/issue');
        expect([res.status, res.body]).to.deep.equal([503, { detail: 'Service temporarily unavailable.' }]);
        expect(Date.now() - started, 'failed by the connect timeout, not the pool').to.be.below(5_000);
      });
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('echoes an acceptable X-Request-Id and generates one otherwise', async () => {
    const { admin } = suite();
    const given = await admin.get('/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).to.equal('abc-123');
    const generated = await admin.get('/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('logs one JSON line per request with its id, and never the token or a password', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log });
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, suite().admin.token);
      await client.post('/api/user', { username: `logged-${Date.now()}`, password: 'super-secret-pw' }, { headers: { 'X-Request-Id': 'log-test-1' } });
      await client.get('/api/issue/tracker', { headers: { 'X-Request-Id': 'log-test-2' } });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const entries = lines.map((l) => JSON.parse(l));
    const first = entries.find((e) => e.reqId === 'log-test-1');
    expect(first).to.include({ method: 'POST', path: '/api/user', status: 201, msg: 'request' });
    expect(entries.find((e) => e.reqId === 'log-test-2')).to.include({ status: 200 });
    const all = lines.join('\n');
    expect(all).to.not.include(suite().admin.token!);
    expect(all).to.not.include('super-secret-pw');
  });

  it('answers 500 as JSON without details for an unexpected fault, logged with the request id', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'error' }, new Writable({ write: (c: Buffer, _e, d) => (lines.push(c.toString()), d()) }));
    const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log });
    app.koa.middleware.splice(2, 0, async (ctx, next) => {
      if (ctx.path === '/boom') throw new Error('kaboom');
      return next();
    });
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).get('/boom', { headers: { 'X-Request-Id': 'boom-1' } });
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({ detail: 'A server error occurred.' });
      expect(res.text).to.not.include('kaboom');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(lines.join('')).to.include('kaboom').and.include('boom-1');
  });
});
