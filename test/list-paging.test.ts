/**
 * Paging a list (issue 12): `limit` with `offset` or an opaque `cursor`, RFC 8288 `Link` headers to
 * the neighbouring pages, `X-Total-Count` only for `count=true`, and MAX_LIST_ROWS capping a list
 * and saying so. Walked over HTTP through every kind of ordering, nulls and ties included, and
 * under inserts between page fetches.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createToken } from '../engine/auth/tokens.js';
import { readConfig } from '../engine/config.js';
import { createApp, type Services } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { startService } from '../engine/service.js';
import { NUL_MESSAGE } from '../engine/crud/validator.js';
import { Client, httpRequest, type Reply } from './support/client.js';
import { createTestDatabase } from './support/database.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';
import { countQueries } from './support/queries.js';

const ISSUES = '/api/issue/issue';
const INVALID = { cursor: ['Invalid cursor: pass on the cursor of a Link header unchanged.'] };

type Row = { id: number };

/** `rel` → the linked path and query (the origin checked against the service's). */
function linksOf(res: Reply, origin: string): Record<string, string> {
  const links: Record<string, string> = {};
  for (const [, url, rel] of (res.headers.get('link') ?? '').matchAll(/<([^>]*)>; rel="(\w+)"/g)) {
    const parsed = new URL(url!);
    expect(parsed.origin).to.equal(origin);
    links[rel!] = parsed.pathname + parsed.search;
  }
  return links;
}

const ids = (res: Reply): number[] => (res.body as Row[]).map((r) => r.id);
const origin = (client: Client) => new URL(client.baseUrl).origin;

/** Every page from `first` on, following `rel` links until there is none. */
async function walk(client: Client, first: string, rel: 'next' | 'prev' = 'next', between?: (page: number) => Promise<void>): Promise<{ pages: number[][]; urls: string[] }> {
  const pages: number[][] = [];
  const urls: string[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    const res: Reply = await client.get(url);
    expect(res.status, `${url}: ${res.text}`).to.equal(200);
    pages.push(ids(res));
    urls.push(url);
    expect(pages.length, 'pages').to.be.below(100);
    await between?.(pages.length);
    url = linksOf(res, origin(client))[rel];
  }
  return { pages, urls };
}

/** `count` issues in a new tracker, inserted at once (so `created` ties), with repeating titles, deadlines and nulls. */
async function trackerWithIssues(count: number): Promise<{ tracker: number; issues: number[] }> {
  const { admin, service, adminId } = suite();
  const tracker = (await created(admin, '/api/issue/tracker', { title: unique('paging') })).id as number;
  const rows = Array.from({ length: count }, (_, i) => ({
    tracker_id: tracker,
    title: `issue ${'abcde'[i % 5]}`,
    deadline: i % 3 === 0 ? null : `2026-0${1 + (i % 4)}-15`,
    assigned_user_id: i % 2 ? adminId : null,
    state: i % 4 === 0 ? 'pending' : 'new',
    created_by: adminId,
  }));
  const inserted = (await service.db('issue_issue').insert(rows).returning('id')) as Row[];
  return { tracker, issues: inserted.map((r) => r.id) };
}

/** A cursor with its JSON changed by `edit`. */
function tampered(cursor: string, edit: (c: { o: string; k: (string | null)[]; c: string }) => void): string {
  const c = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  edit(c);
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

const cursorOf = (path: string): string => new URLSearchParams(path.split('?')[1]).get('cursor')!;

describe('list paging', () => {
  let tracker: number;
  let issues: number[];

  before(async () => {
    ({ tracker, issues } = await trackerWithIssues(20));
  });

  describe('links', () => {
    it('links the next page by cursor and the previous one by offset, keeping every other parameter', async () => {
      const { admin } = suite();
      const query = `tracker=${tracker}&search=${encodeURIComponent('issue  a')}&ordering=-deadline,title`;
      const all = await admin.get(`${ISSUES}?${query}`);
      expect(all.headers.get('link'), 'an unpaged list has no links').to.equal(null);
      expect(all.body).to.have.length(4);

      const first = await admin.get(`${ISSUES}?${query}&limit=2`);
      expect(ids(first)).to.deep.equal(ids(all).slice(0, 2));
      const firstLinks = linksOf(first, origin(admin));
      expect(Object.keys(firstLinks)).to.deep.equal(['next']);
      const next = new URL(firstLinks.next!, 'http://x').searchParams;
      expect([...next.keys()]).to.deep.equal(['tracker', 'search', 'ordering', 'limit', 'cursor']);
      expect(next.get('search')).to.equal('issue  a');
      expect(next.get('ordering')).to.equal('-deadline,title');
      expect(ids(await admin.get(firstLinks.next!))).to.deep.equal(ids(all).slice(2, 4));

      const middle = await admin.get(`${ISSUES}?${query}&limit=2&offset=1`);
      expect(ids(middle)).to.deep.equal(ids(all).slice(1, 3));
      const middleLinks = linksOf(middle, origin(admin));
      expect(middleLinks.prev).to.equal(`${ISSUES}?tracker=${tracker}&search=issue++a&ordering=-deadline%2Ctitle&limit=2`);
      expect(ids(await admin.get(middleLinks.prev!))).to.deep.equal(ids(all).slice(0, 2));
      expect(ids(await admin.get(middleLinks.next!))).to.deep.equal(ids(all).slice(3, 4));
      expect(linksOf(await admin.get(`${ISSUES}?${query}&limit=2&offset=3`), origin(admin)).prev).to.include('&offset=1');

      const last = await admin.get(`${ISSUES}?${query}&limit=2&offset=2`);
      expect(Object.keys(linksOf(last, origin(admin))), 'no next after the last record').to.deep.equal(['prev']);
      expect(linksOf(await admin.get(`${ISSUES}?${query}&limit=4`), origin(admin))).to.deep.equal({});
    });

    it('answers limit=0 with an empty array and no links', async () => {
      const res = await suite().admin.get(`${ISSUES}?tracker=${tracker}&limit=0&offset=3`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([]);
      expect(res.headers.get('link')).to.equal(null);
    });

    for (const ordering of ['', 'title', '-title', 'deadline', '-deadline', 'assigned_user', '-assigned_user', '-created,title', 'state,-deadline,title', '-id', 'id,title']) {
      it(`walks the whole list by next links and back by prev links, ordered by "${ordering}"`, async () => {
        const { admin } = suite();
        const base = `${ISSUES}?tracker=${tracker}${ordering ? `&ordering=${ordering}` : ''}`;
        const all = ids(await admin.get(base));
        expect([...all].sort((a, b) => a - b)).to.deep.equal(issues);
        const forward = await walk(admin, `${base}&limit=3`);
        expect(forward.pages.flat()).to.deep.equal(all);
        expect(forward.pages.map((p) => p.length)).to.deep.equal([3, 3, 3, 3, 3, 3, 2]);
        // back from the last page: the same pages, each found from its neighbour's cursor
        const backward = await walk(admin, forward.urls.at(-1)!, 'prev');
        expect(backward.pages).to.deep.equal([...forward.pages].reverse());
        const onward = linksOf(await admin.get(backward.urls.at(-1)!), origin(admin)).next!;
        expect(ids(await admin.get(onward)), 'the first page, reached backwards, links onwards').to.deep.equal(forward.pages[1]);
      });
    }

    it('pages by cursor without a limit as the rest of the list, with no links', async () => {
      const { admin } = suite();
      const next = linksOf(await admin.get(`${ISSUES}?tracker=${tracker}&ordering=title&limit=5`), origin(admin)).next!;
      const rest = await admin.get(next.replace(/&limit=5/, ''));
      expect(ids(rest)).to.deep.equal(ids(await admin.get(`${ISSUES}?tracker=${tracker}&ordering=title`)).slice(5));
      expect(rest.headers.get('link')).to.equal(null);
    });

    it('links from a page emptied meanwhile back to the records before it', async () => {
      const { admin, service } = suite();
      const own = await trackerWithIssues(7);
      const first = await admin.get(`${ISSUES}?tracker=${own.tracker}&limit=4`);
      const next = linksOf(first, origin(admin)).next!;
      await service.db('issue_issue').whereIn('id', own.issues.slice(4)).delete();
      const empty = await admin.get(next);
      expect(empty.body).to.deep.equal([]);
      const links = linksOf(empty, origin(admin));
      expect(Object.keys(links)).to.deep.equal(['prev']);
      expect(ids(await admin.get(links.prev!))).to.deep.equal(own.issues.slice(0, 4));
    });
  });

  describe('the address links name (issue 22.12)', () => {
    const HOSTILE = ['a"><script>alert(1)</script>', 'a b', 'x/y', 'x?y', 'x#y', 'u@', '[zz]', '[::1', 'x:99999', 'x:', 'x:8o', '<x>', 'ex%41mple.com', 'javascript:alert(1)', '\\x'];
    /** The Link header of a first page of two records, asked of `base` with `headers` (Host among them). */
    const linkOf = async (base: string, headers: Record<string, string>) =>
      (await httpRequest(`${base}${ISSUES}?tracker=${tracker}&limit=1`, { headers: { Authorization: `Token ${suite().admin.token!}`, ...headers } })).headers.get('link') ?? '';
    const nextAt = (origin: string) => new RegExp(`^<${origin.replace(/[.[\]]/g, '\\$&')}${ISSUES}\\?tracker=\\d+&limit=1&cursor=[\\w-]+>; rel="next"$`);

    it('names the Host a request gave when it is a well-formed host[:port], and the address it reached otherwise', async () => {
      const base = suite().service.url;
      for (const host of ['api.example.com', 'API.example.com:8443', '[::1]:8000', '192.0.2.1']) expect(await linkOf(base, { Host: host }), host).to.match(nextAt(`http://${host}`));
      for (const host of HOSTILE) expect(await linkOf(base, { Host: host }), host).to.match(nextAt(base));
      // behind no trusted proxy, its headers count for nothing
      expect(await linkOf(base, { Host: 'api.example.com', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' })).to.match(nextAt('http://api.example.com'));
    });

    it('behind TRUST_PROXY takes X-Forwarded-Host and -Proto only when well-formed; PUBLIC_URL wins over every header', async () => {
      const registry = await loadRegistry();
      const servers: http.Server[] = [];
      const serve = async (options: Partial<Services>): Promise<string> => {
        const server = http.createServer(createApp({ db: suite().service.db, registry, log: createLogger('silent'), ...options }).koa.callback());
        servers.push(server);
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      };
      try {
        const proxied = await serve({ trustProxy: true });
        expect(await linkOf(proxied, { 'X-Forwarded-Host': 'api.example.com', 'X-Forwarded-Proto': 'https' })).to.match(nextAt('https://api.example.com'));
        expect(await linkOf(proxied, { 'X-Forwarded-Host': 'api.example.com, evil.example', 'X-Forwarded-Proto': 'HTTPS' })).to.match(nextAt('https://api.example.com'));
        expect(await linkOf(proxied, { 'X-Forwarded-Host': 'api.example.com', 'X-Forwarded-Proto': 'javascript' })).to.match(nextAt('http://api.example.com'));
        for (const host of HOSTILE) expect(await linkOf(proxied, { 'X-Forwarded-Host': host, 'X-Forwarded-Proto': 'https' }), host).to.match(nextAt(proxied));
        const published = await serve({ trustProxy: true, publicUrl: 'https://example.com/bms' });
        for (const host of ['api.example.com', ...HOSTILE]) expect(await linkOf(published, { Host: host, 'X-Forwarded-Host': host }), host).to.match(nextAt('https://example.com/bms'));
      } finally {
        await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      }
    });

    it('reads PUBLIC_URL as an http or https URL with a host, kept without a trailing slash', () => {
      const env = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
      expect(readConfig(env).publicUrl).to.equal(undefined);
      expect(readConfig({ ...env, PUBLIC_URL: 'HTTPS://API.Example.com/' }).publicUrl).to.equal('https://api.example.com');
      expect(readConfig({ ...env, PUBLIC_URL: 'http://[::1]:8000/bms/' }).publicUrl).to.equal('http://[::1]:8000/bms');
      for (const bad of ['api.example.com', 'javascript:alert(1)', 'ftp://example.com', 'http://', 'http:///x', 'https://user:pw@example.com', 'https://example.com/?a=1', 'https://example.com/#x']) {
        expect(() => readConfig({ ...env, PUBLIC_URL: bad }), bad).to.throw(`Invalid setting PUBLIC_URL="${bad}": expected the http or https URL clients reach the service at`);
      }
    });
  });

  describe('stable under inserts', () => {
    // each insert sorts before every record so far: a smaller title, a later `created`
    for (const [ordering, title] of [
      ['title', (n: number) => `aaa ${900 - n}`],
      ['-created', (n: number) => `newest ${n}`],
    ] as const) {
      it(`neither repeats nor skips a record when records are inserted before the cursor position (ordering=${ordering})`, async () => {
        const { admin } = suite();
        const own = await trackerWithIssues(12);
        const base = `${ISSUES}?tracker=${own.tracker}&ordering=${ordering}&limit=4`;
        // offset paging, for contrast: the same inserts shift the rows under it
        let inserted = 0;
        const insert = async () => {
          for (let i = 0; i < 2; i++) await created(admin, ISSUES, { tracker_id: own.tracker, title: title(++inserted) });
        };
        const byOffset: number[] = [];
        for (let offset = 0; offset < 12; offset += 4) {
          byOffset.push(...ids(await admin.get(`${base}&offset=${offset}`)));
          await insert();
        }
        expect(new Set(byOffset).size, 'offset paging repeats rows under these inserts').to.be.below(byOffset.length);

        const before = new Set(ids(await admin.get(`${ISSUES}?tracker=${own.tracker}`)));
        const { pages } = await walk(admin, base, 'next', insert);
        const seen = pages.flat();
        expect(new Set(seen).size, 'no record twice').to.equal(seen.length);
        for (const id of before) expect(seen, `record ${id}`).to.include(id);
        expect(seen.filter((id) => !before.has(id)), 'records inserted before the position are not served').to.deep.equal([]);
      });
    }
  });

  describe('X-Total-Count', () => {
    it('is sent only for count=true: the records matching the filters and visible to the caller, whatever the paging', async () => {
      const { admin, adminId } = suite();
      expect((await admin.get(`${ISSUES}?tracker=${tracker}&limit=2`)).headers.get('x-total-count')).to.equal(null);
      expect((await admin.get(`${ISSUES}?tracker=${tracker}&count=false`)).headers.get('x-total-count')).to.equal(null);
      const counted = await admin.get(`${ISSUES}?tracker=${tracker}&count=true&limit=2`);
      expect(counted.headers.get('x-total-count')).to.equal('20');
      expect(counted.body).to.have.length(2);
      const next = linksOf(counted, origin(admin)).next!;
      expect(next).to.include('count=true');
      expect((await admin.get(next)).headers.get('x-total-count'), 'a cursor page counts the whole list').to.equal('20');
      expect((await admin.get(`${ISSUES}?tracker=${tracker}&deadline__isnull=true&count=true`)).headers.get('x-total-count')).to.equal('7');

      const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential', admin_ids: [adminId] });
      for (let i = 0; i < 3; i++) await created(admin, ISSUES, { tracker_id: secret.id, title: `secret ${i}` });
      const viewer = await makeUser({ permissions: ['issues.view_issue'] });
      const hidden = await viewer.client.get(`${ISSUES}?tracker=${secret.id}&count=true`);
      expect([hidden.body, hidden.headers.get('x-total-count')]).to.deep.equal([[], '0']);
      expect((await admin.get(`${ISSUES}?tracker=${secret.id}&count=true`)).headers.get('x-total-count')).to.equal('3');
    });

    it("is counted by the list's own statement, from the snapshot its records come from: no query more", async () => {
      const { admin } = suite();
      expect((await admin.get(`${ISSUES}?tracker=${tracker}&limit=2`)).status).to.equal(200); // the principal cached
      const plain = await countQueries(() => admin.get(`${ISSUES}?tracker=${tracker}&limit=2`));
      let counted: Reply | undefined;
      const withCount = await countQueries(async () => (counted = await admin.get(`${ISSUES}?tracker=${tracker}&limit=2&count=true`)));
      expect(counted!.headers.get('x-total-count')).to.equal('20');
      expect(withCount).to.equal(plain);
    });
  });

  describe('bad paging parameters', () => {
    let cursor: string;
    before(async () => {
      const { admin } = suite();
      cursor = cursorOf(linksOf(await admin.get(`${ISSUES}?tracker=${tracker}&ordering=-deadline&limit=2`), origin(admin)).next!);
    });
    const get = (query: string) => suite().admin.get(`${ISSUES}?tracker=${tracker}&${query}`);

    it('refuses a cursor that is not one, or was changed, under cursor', async () => {
      for (const bad of [
        'not-a-cursor',
        'abc!',
        Buffer.from('{"o":"-deadline,id"}').toString('base64url'),
        tampered(cursor, (c) => (c.k[1] = 'abc')),
        tampered(cursor, (c) => (c.k[1] = null)),
        tampered(cursor, (c) => (c.k[0] = '2026-02-30')),
        tampered(cursor, (c) => c.k.push('1')),
        tampered(cursor, (c) => (c.c = '!=')),
        tampered(cursor, (c) => (c.k[0] = 'a\u0000b')),
      ]) {
        const res = await get(`ordering=-deadline&limit=2&cursor=${encodeURIComponent(bad)}`);
        expect([res.status, res.body], bad).to.deep.equal([400, INVALID]);
      }
      expect((await get(`ordering=-deadline&limit=2&cursor=${cursor}`)).status).to.equal(200);
    });

    it('refuses a cursor made for another ordering, naming both', async () => {
      const res = await get(`ordering=deadline&limit=2&cursor=${cursor}`);
      expect([res.status, res.body]).to.deep.equal([
        400,
        { cursor: ['This cursor belongs to the ordering "-deadline,id", not "deadline,id": send it with that ordering, or start again without a cursor.'] },
      ]);
      expect((await get(`limit=2&cursor=${cursor}`)).body.cursor[0]).to.include('not "id"');
    });

    it('refuses a cursor with an offset, a bad count and a NUL, all at once', async () => {
      const res = await get(`ordering=-deadline&cursor=${cursor}&offset=2&count=maybe&limit=x`);
      expect([res.status, res.body]).to.deep.equal([
        400,
        {
          limit: ['Enter a number.'],
          cursor: ['A cursor cannot be combined with offset: the cursor says where the page starts.'],
          count: ['Select a valid choice. maybe is not one of the available choices.'],
        },
      ]);
      expect((await get('cursor=%00')).body).to.deep.equal({ cursor: [NUL_MESSAGE] });
      const badOrdering = await get(`ordering=nope&cursor=${cursor}`);
      expect(badOrdering.body, 'a cursor is not judged against an ordering that does not exist').to.deep.equal({ ordering: ['Cannot order by "nope".'] });
    });
  });

  describe('MAX_LIST_ROWS', () => {
    it('is no cap when unset: an unpaged list is whole, with no truncation header', async () => {
      const res = await suite().admin.get(`${ISSUES}?tracker=${tracker}`);
      expect(res.body).to.have.length(20);
      expect(res.headers.get('x-list-truncated')).to.equal(null);
      expect(res.headers.get('link')).to.equal(null);
    });

    it('caps an unpaged list (and a larger limit), says so, and links the rest', async function () {
      this.timeout(120_000);
      // PGlite serves one process: a capped instance there needs a database of its own
      const shared = suite().database.databaseUrl !== undefined;
      const database = shared ? suite().database : await createTestDatabase();
      const svc = await startService(
        testConfig(database, { maxListRows: 5 }),
        createLogger('silent'),
        { quiet: true },
      );
      try {
        const admin = (await svc.db('users').where({ username: 'admin' }).first('id')) as Row;
        const client = new Client(svc.url, (await createToken(svc.db, admin.id, 'paging')).key);
        const own = (await created(client, '/api/issue/tracker', { title: unique('capped') })).id as number;
        for (let i = 0; i < 12; i++) await created(client, ISSUES, { tracker_id: own, title: `capped ${i}` });
        const all = (await svc.db('issue_issue').where({ tracker_id: own }).orderBy('id').pluck('id')) as number[];

        const capped = await client.get(`${ISSUES}?tracker=${own}`);
        expect(ids(capped)).to.deep.equal(all.slice(0, 5));
        expect(capped.headers.get('x-list-truncated')).to.equal('true');
        const { pages, urls } = await walk(client, `${ISSUES}?tracker=${own}`);
        expect(pages).to.deep.equal([all.slice(0, 5), all.slice(5, 10), all.slice(10)]);
        expect(urls.slice(1).every((u) => !u.includes('limit='))).to.equal(true);
        expect((await client.get(urls[1]!)).headers.get('x-list-truncated')).to.equal('true');
        const end = await client.get(urls[2]!);
        expect([end.headers.get('x-list-truncated'), linksOf(end, origin(client)).next]).to.deep.equal([null, undefined]);

        const paged = await client.get(`${ISSUES}?tracker=${own}&limit=3`);
        expect([ids(paged), paged.headers.get('x-list-truncated')]).to.deep.equal([all.slice(0, 3), null]);
        const large = await client.get(`${ISSUES}?tracker=${own}&limit=8&count=true`);
        expect([ids(large), large.headers.get('x-list-truncated'), large.headers.get('x-total-count')]).to.deep.equal([all.slice(0, 5), 'true', '12']);
        expect(ids(await client.get(linksOf(large, origin(client)).next!))).to.deep.equal(all.slice(5, 10));
        const few = await client.get(`${ISSUES}?tracker=${own}&search=capped%201`);
        expect([few.body.length, few.headers.get('x-list-truncated')]).to.deep.equal([3, null]);
      } finally {
        await svc.close();
        if (!shared) await database.drop();
      }
    });
  });
});
