/**
 * Lists are read from a cursor: a list over the read-ahead budget (8 MiB, or 50 ms after its first
 * records) streams and arrives whole and in order, a short one in one piece with its length, the
 * first records come before the rest are computed, and a client that goes away mid-list gives its
 * connection back.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { expect } from 'chai';
import { sendJsonArray } from '../engine/http/json-response.js';
import { probedPieces, textPieces } from '../engine/storage/text-pieces.js';
import type { Fragment } from '../engine/storage/sql.js';
import { describeWithServer } from './support/database.js';
import { createLogger } from '../engine/log.js';
import { startService } from '../engine/service.js';
import { makeUser } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';
import { Client } from './support/client.js';
import { within } from './support/wait.js';

const PATH = '/api/glossar/entry';
/** Records of about 7 kB each: the list is longer than the read-ahead budget (8 MiB), so it streams. */
const COUNT = 1500;

/**
 * A GET of a list that reads its first bytes and then nothing more, holding the list open (the
 * server's stream waits on the unread socket), until `leave`; a refusal resolves with its status.
 */
function holdOpen(url: string, token: string): Promise<{ status: number; leave: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Token ${token}` } }, (res) => {
      const leave = () => req.destroy();
      if (res.statusCode !== 200) return void res.resume().once('end', () => resolve({ status: res.statusCode!, leave }));
      res.once('data', () => {
        res.pause();
        resolve({ status: 200, leave });
      });
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
  });
}

/** A GET whose body is dropped after its first bytes: the client leaves mid-list. */
function leaveMidway(url: string, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Token ${token}` } }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
  });
}

describe('list streaming', () => {
  let ids: number[];

  before(async () => {
    const { admin, service } = suite();
    const first = await admin.post(PATH, { title: 'stream 0', description: 'x' });
    expect(first.status, first.text).to.equal(201);
    const table = service.app.services.get('glossar/entry')!.resource.table;
    await service.db.raw(
      `insert into ?? (title, description, created_by) select 'stream ' || n, repeat('long text ', 700), ? from generate_series(1, ?) n`,
      [table, suite().adminId, COUNT - 1],
    );
    ids = ((await service.db(table).where('title', 'like', 'stream %').orderBy('id').pluck('id')) as number[]);
    expect(ids).to.have.length(COUNT);
  });

  it('streams a long list whole, in order, equal to its pages', async () => {
    const { admin } = suite();
    const all = await admin.get(`${PATH}?search=stream&ordering=id`);
    expect(all.status).to.equal(200);
    expect(all.headers.get('content-type')).to.match(/^application\/json/);
    expect(all.headers.get('content-length'), 'streamed, so no length up front').to.equal(null);
    expect(all.body.map((r: { id: number }) => r.id)).to.deep.equal(ids);
    const pages = [];
    for (let offset = 0; offset < COUNT; offset += 400) pages.push(...(await admin.get(`${PATH}?search=stream&ordering=id&limit=400&offset=${offset}`)).body);
    expect(all.body).to.deep.equal(pages);
  });

  it('answers byte for byte as its pages, read ahead whole or streamed', async () => {
    const { admin } = suite();
    const texts = async (path: string) => {
      const res = await admin.get(path);
      expect(res.status).to.equal(200);
      return res.text as string;
    };
    const pagesOf = async (size: number, count: number) => {
      const pages: string[] = [];
      for (let offset = 0; offset < count; offset += size) pages.push((await texts(`${PATH}?search=stream&ordering=id&limit=${size}&offset=${offset}`)).slice(1, -1));
      return `[${pages.join(',')}]`;
    };
    // about 2 MiB: many pieces of records, more than pause the connection, sent whole with its length
    const whole = await admin.get(`${PATH}?search=stream&ordering=id&limit=300`);
    expect(Number(whole.headers.get('content-length'))).to.equal(Buffer.byteLength(whole.text));
    expect(whole.text).to.equal(await pagesOf(100, 300));
    expect(await texts(`${PATH}?search=stream&ordering=id`)).to.equal(await pagesOf(500, COUNT));
  });

  it('continues past the head PostgreSQL joins (10,000 records) row by row, complete and in order', async function () {
    this.timeout(120_000);
    const { admin, service } = suite();
    const table = service.app.services.get('glossar/entry')!.resource.table;
    await service.db.raw(`insert into ?? (title, description, created_by) select 'many ' || n, 'short', ? from generate_series(1, 10050) n`, [table, suite().adminId]);
    const many = (await service.db(table).where('title', 'like', 'many %').orderBy('id').pluck('id')) as number[];
    const all = await admin.get(`${PATH}?search=many&ordering=id`);
    expect(all.body.map((r: { id: number }) => r.id)).to.deep.equal(many);
    const pages: string[] = [];
    for (let offset = 0; offset < many.length; offset += 4000) pages.push((await admin.get(`${PATH}?search=many&ordering=id&limit=4000&offset=${offset}`)).text.slice(1, -1));
    expect(all.text).to.equal(`[${pages.join(',')}]`);
    // a page longer than the head, after an offset
    const page = await admin.get(`${PATH}?search=many&ordering=id&limit=10020&offset=20`);
    expect(page.body).to.deep.equal(all.body.slice(20, 10040));
  });

  it('sends a short list in one piece with its length', async () => {
    const res = await suite().admin.get(`${PATH}?search=stream&ordering=id&limit=3`);
    expect(res.status).to.equal(200);
    expect(Number(res.headers.get('content-length'))).to.equal(Buffer.byteLength(res.text));
    expect(res.body.map((r: { id: number }) => r.id)).to.deep.equal(ids.slice(0, 3));
  });

  it('gives the connection back when the client leaves mid-list', async function () {
    this.timeout(60_000);
    const { admin, service } = suite();
    // more departures than the pool has connections: a leak would leave none for the next request
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 8 }, () => leaveMidway(`${service.url}${PATH}?search=stream`, admin.token!)));
    }
    const started = Date.now();
    const detail = await admin.get(`${PATH}/${ids[0]}`);
    expect(detail.status).to.equal(200);
    expect(Date.now() - started).to.be.below(5_000);
    const pool = (service.db.client as { pool: { numUsed(): number } }).pool;
    expect(await within(5_000, async () => pool.numUsed() === 0), 'connections still held').to.equal(true);
  });

  it('gives the connection back after a HEAD of a streamed list, whose body is never read', async function () {
    this.timeout(60_000);
    const { admin, service } = suite();
    const table = service.app.services.get('glossar/entry')!.resource.table;
    // past the head PostgreSQL joins (10,000 records), 20 MB more: far more than the socket buffers
    // take, so the statement cannot end unless the unread body lets it go
    await service.db.raw(
      `insert into ?? (title, description, created_by) select 'headed ' || n, case when n > 10000 then repeat('long text ', 700) else 'short' end, ? from generate_series(1, 13000) n`,
      [table, suite().adminId],
    );
    try {
      const pool = (service.db.client as { pool: { numUsed(): number } }).pool;
      for (let i = 0; i < 3; i++) {
        expect((await admin.request('HEAD', `${PATH}?search=headed&ordering=id`)).status).to.equal(200);
      }
      expect(await within(5_000, async () => pool.numUsed() === 0), 'connections still held').to.equal(true);
    } finally {
      await service.db(table).where('title', 'like', 'headed %').delete();
    }
  });

  describeWithServer('lists one user reads at once (LISTS_PER_USER, issue 22)', 'bounds a share of the pool', () => {
    it('bounds one user\'s open lists, so other users are served; a turn ends when its list does', async function () {
      this.timeout(60_000);
      // three connections; one user may hold two of them with lists, and waits a second for a third
      const svc = await startService(testConfig(suite().database, { listsPerUser: 2, bounds: { poolSize: 3, acquireTimeoutMs: 1_000 } }), createLogger('silent'), { quiet: true });
      const held: { status: number; leave: () => void }[] = [];
      try {
        const admin = new Client(svc.url, suite().admin.token);
        const other = new Client(svc.url, (await makeUser({ permissions: ['glossar.view_entry'] })).token);
        const long = `${svc.url}${PATH}?search=stream`;
        held.push(...(await Promise.all([0, 1, 2].map(() => holdOpen(long, admin.token!)))));
        expect(held.map((h) => h.status).sort()).to.deep.equal([200, 200, 429]);
        const started = Date.now();
        const refused = await admin.get(`${PATH}?search=stream&limit=1`);
        expect([refused.status, refused.body, refused.headers.get('retry-after')]).to.deep.equal([429, { detail: 'Request was throttled. Expected available in 1 seconds.' }, '1']);
        expect(Date.now() - started, 'refused after waiting its turn for POOL_ACQUIRE_TIMEOUT_MS').to.be.within(900, 5_000);
        for (const path of [`${PATH}/${ids[0]}`, `${PATH}?search=stream&limit=5`]) {
          const at = Date.now();
          expect((await other.get(path)).status, `another user's ${path}`).to.equal(200);
          expect(Date.now() - at).to.be.below(1_000);
        }
        // a list waiting for a turn gets the one its user's list gives up
        const waiting = admin.get(`${PATH}?search=stream&limit=5`);
        held.find((h) => h.status === 200)!.leave();
        expect((await waiting).status).to.equal(200);
      } finally {
        for (const h of held) h.leave();
        await svc.close();
      }
    });
  });


});

describeWithServer('text pieces read from the wire', 'reads pg protocol messages of a server connection', () => {
  it('hands its connection back readable when the rows that paused the socket came with the end of the statement', async function () {
    this.timeout(30_000);
    const { db } = suite().service;
    // a first piece for the reader, then 2 MB it does not read yet: the socket pauses on the chunk
    // that also holds the statement's end, and the connection goes back to the pool then
    const pieces = textPieces(db, { sql: "select repeat('a', 70000) union all select repeat('b', 2000000)", bindings: [] })[Symbol.asyncIterator]();
    expect((await pieces.next()).value).to.have.length(70000);
    const pool = (db.client as { pool: { numUsed(): number; numFree(): number } }).pool;
    expect(await within(5_000, async () => pool.numUsed() === 0), 'the statement ended').to.equal(true);
    const free = pool.numFree();
    const answers = await Promise.all(Array.from({ length: free }, () => db.raw('select 1').timeout(2_000).then(() => true, () => false)));
    expect(answers, 'every pooled connection answers').to.deep.equal(Array(free).fill(true));
    expect((await pieces.next()).value).to.have.length(2000000);
    expect((await pieces.next()).done).to.equal(true);
  });

  it('hands on the first row as soon as PostgreSQL has it, before the rows after it are computed', async function () {
    this.timeout(30_000);
    const started = Date.now();
    const pieces = textPieces(suite().service.db, { sql: "select 'first' union all select 'second' from pg_sleep(2)", bindings: [] })[Symbol.asyncIterator]();
    expect((await pieces.next()).value).to.equal('first');
    // PostgreSQL keeps a short row in its output buffer until more output fills it or the statement ends
    expect(Date.now() - started, 'the first row came before the second was computed').to.be.below(1_500);
    expect((await pieces.next()).value).to.equal('second');
    expect((await pieces.next()).done).to.equal(true);
  });
});

describe('a list answer read ahead up to a time', () => {
  let server: http.Server;
  let url: string;
  /** Pieces the next request's list yields, each after its delay in milliseconds; an Error fails the list there. */
  let pieces: [number, string | Error][] = [];

  before(async () => {
    const app = new Koa();
    app.use(async (ctx) => {
      const timed = pieces;
      await sendJsonArray(ctx, (async function* () {
        for (const [delay, piece] of timed) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          if (piece instanceof Error) throw piece;
          yield piece;
        }
      })());
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('answers a list that is quickly read whole in one piece, with its length', async () => {
    pieces = [[0, '{"id":1}'], [10, '{"id":2}']];
    const res = await fetch(url);
    expect(res.headers.get('content-length')).to.equal(String('[{"id":1},{"id":2}]'.length));
    expect(await res.json()).to.deep.equal([{ id: 1 }, { id: 2 }]);
  });

  it('streams a list whose later records are slow to come, from its first records on', async () => {
    pieces = [[0, '{"id":1}'], [2_000, '{"id":2}']];
    const started = Date.now();
    const res = await fetch(url);
    expect(Date.now() - started, 'the answer began before the last records came').to.be.below(1_500);
    expect(res.headers.get('content-length')).to.equal(null);
    expect(await res.json()).to.deep.equal([{ id: 1 }, { id: 2 }]);
    expect(Date.now() - started).to.be.at.least(2_000);
  });

  it('waits for the first records however long they take', async () => {
    pieces = [[700, '{"id":1}']];
    const res = await fetch(url);
    expect(res.headers.get('content-length'), 'read whole: the time counts from the first records').to.equal('10');
    expect(await res.json()).to.deep.equal([{ id: 1 }]);
  });

  it('answers a list that fails before its first records with its own status, however late', async () => {
    pieces = [[700, Object.assign(new Error('Service temporarily unavailable.'), { status: 503, expose: true })]];
    const res = await fetch(url);
    expect(res.status).to.equal(503);
    expect(await res.text()).to.equal('Service temporarily unavailable.');
  });
});

/**
 * A list of `table`'s ids read as probedPieces reads one: the probe (the first 1,000 and how many
 * rows it read, up to 1,001; `delay` seconds inside it) and the whole list as listRecords answers
 * it (the first head, then the others). `wholeRuns` counts the whole ones.
 */
function idList(table: string, delay = 0) {
  const t = `"${table}"`;
  const sleep = delay ? ` cross join pg_sleep(${delay})` : '';
  const probe: Fragment = {
    sql: `select string_agg(id::text, ',') filter (where w_n <= 1000) as json, count(*)::int as w_rows from (select id, row_number() over () as w_n from (select id from ${t} order by id limit 1001) h) h${sleep}`,
    bindings: [],
  };
  const list = {
    wholeRuns: 0,
    pieces: () =>
      probedPieces(suite().service.db, probe, () => {
        list.wholeRuns++;
        const rest = `select string_agg(id::text, ',') as json from (select id from ${t} order by id offset 1000) r`;
        return { sql: `select string_agg(id::text, ',') as json from (select id from ${t} order by id limit 1000) h union all select * from (${rest}) r`, bindings: [] };
      }),
    async read(): Promise<string> {
      const pieces: string[] = [];
      for await (const piece of list.pieces()) pieces.push(piece);
      return pieces.join(',');
    },
  };
  return list;
}

const ids = (from: number, to: number, without: number[] = [], also: number[] = []): string =>
  [...Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((n) => !without.includes(n)), ...also].join(',');

describe('a list longer than its probe', () => {
  const table = `probed_${process.pid}`;
  beforeEach(async () => {
    const { db } = suite().service;
    await db.raw('drop table if exists ??', [table]);
    await db.raw('create table ?? (id int primary key)', [table]);
    await db.raw('insert into ?? select generate_series(1, 1500)', [table]);
  });
  after(async () => void (await suite().service.db.raw('drop table if exists ??', [table])));

  it('is the whole list\'s statement once the probe says it goes on; its shape then runs whole until a whole run fits the probe, and is probed again', async () => {
    const { db } = suite().service;
    const list = idList(table);
    expect(await list.read()).to.equal(ids(1, 1500));
    expect(list.wholeRuns, 'probed, then read whole').to.equal(1);
    expect(await list.read()).to.equal(ids(1, 1500));
    expect(list.wholeRuns, 'the shape outgrew its probe: whole at once').to.equal(2);
    await db.raw('delete from ?? where id > 900', [table]);
    expect(await list.read()).to.equal(ids(1, 900));
    expect(list.wholeRuns, 'whole once more, which fits the probe').to.equal(3);
    expect(await list.read()).to.equal(ids(1, 900));
    expect(list.wholeRuns, 'probed again').to.equal(3);
    const pool = (db.client as { pool: { numUsed(): number } }).pool;
    expect(await within(5_000, async () => pool.numUsed() === 0), 'connections still held').to.equal(true);
  });

  describeWithServer('the answer', 'reads from a second connection while the probe runs', () => {
    it('comes from one statement: a change committed while the probe runs is in all of it, the probe\'s records dropped', async function () {
      this.timeout(30_000);
      const { db } = suite().service;
      const list = idList(table, 1);
      const pieces = list.pieces()[Symbol.asyncIterator]();
      const head = pieces.next();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // another connection, while the probe sleeps: the whole list, which starts after it, sees this
      await db.raw('delete from ?? where id = 1200', [table]);
      await db.raw('insert into ?? values (1600)', [table]);
      await db.raw('delete from ?? where id = 5', [table]);
      // the probe read 1 to 1,000 with 5 in it: not what is answered
      expect((await head).value).to.equal(ids(1, 1001, [5]));
      expect((await pieces.next()).value).to.equal(ids(1002, 1500, [1200], [1600]));
      expect((await pieces.next()).done).to.equal(true);
      expect(list.wholeRuns).to.equal(1);
    });
  });
});

