/**
 * The principal cache (PRINCIPAL_CACHE_MS; 60 s in these tests): a token's user, groups and
 * permissions are kept between requests, and every change to them is heard through PostgreSQL's
 * NOTIFY: the instance that made the change drops its cache before it answers, another instance on
 * the same database as soon as the notification reaches it, long before the time to live. While
 * changes cannot be heard, the cache is not used.
 */
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { LISTENER_NAME } from '../engine/auth/principal-changes.js';
import { MAX_ENTRIES, PrincipalCache, type CachedToken } from '../engine/auth/principal-cache.js';
import { createToken } from '../engine/auth/tokens.js';
import { Client } from './support/client.js';
import { describeWithServer } from './support/database.js';
import { suite } from './support/hooks.js';
import { unique, created } from './support/fixtures.js';
import { startServiceProcess, type ServiceProcess } from './support/processes.js';
import { countQueries } from './support/queries.js';
import { within } from './support/wait.js';

/** A user with a group of its own, a token, and the change a scenario makes. */
interface Subject {
  id: number;
  groupId: number;
  token: string;
}

interface Scenario {
  title: string;
  permissions: string[];
  superuser?: boolean;
  /** Answers 200 before the change. */
  path: string;
  change(subject: Subject): Promise<unknown>;
  /** The answer after it. */
  after: 401 | 403;
}

const admin = () => suite().admin;
const patched = async (path: string, body: unknown) => expect((await admin().patch(path, body)).status, path).to.equal(200);

const SCENARIOS: Scenario[] = [
  {
    title: 'refuses a token revoked by its holder',
    permissions: ['issues.view_tracker'],
    path: '/api/issue/tracker',
    change: async ({ token }) => {
      const own = admin().as(token);
      const [listed] = (await own.get('/api/auth/tokens')).body as { id: number }[];
      expect((await own.delete(`/api/auth/tokens/${listed!.id}`)).status).to.equal(204);
    },
    after: 401,
  },
  {
    title: 'refuses a deactivated user',
    permissions: ['issues.view_tracker'],
    path: '/api/issue/tracker',
    change: ({ id }) => patched(`/api/user/${id}`, { is_active: false }),
    after: 401,
  },
  {
    title: 'narrows when a group loses a permission',
    permissions: ['issues.view_tracker', 'issues.view_issue'],
    path: '/api/issue/tracker',
    change: ({ groupId }) => patched(`/api/customgroup/${groupId}`, { permissions: ['issues.view_issue'] }),
    after: 403,
  },
  {
    title: 'narrows when the user leaves a group',
    permissions: ['issues.view_tracker'],
    path: '/api/issue/tracker',
    change: ({ id }) => patched(`/api/user/${id}`, { group_ids: [] }),
    after: 403,
  },
  {
    title: 'narrows when the superuser flag is taken',
    permissions: [],
    superuser: true,
    path: '/api/user',
    change: ({ id }) => patched(`/api/user/${id}`, { is_superuser: false }),
    after: 403,
  },
];

async function subject(permissions: string[], superuser = false): Promise<Subject> {
  const group = await created(admin(), '/api/customgroup', { name: unique('cached'), permissions });
  const user = await created(admin(), '/api/user', { username: unique('cached'), password: 'correct-horse-1', is_superuser: superuser, group_ids: [group.id] });
  const { key } = await createToken(suite().service.db, user.id, 'cached');
  return { id: user.id, groupId: group.id, token: key };
}

/** A change made with the triggers off, as no write of the service can be: nothing is notified. */
async function silently(work: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await suite().service.db.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await work(trx);
  });
}

/** `path` answers `status` within ten seconds: the notification's way to another process, not the 60 s TTL. */
async function answersSoon(client: Client, path: string, status: number): Promise<void> {
  expect(await within(10_000, async () => (await client.get(path)).status === status), `${path} answers ${status}`).to.equal(true);
}

/** The cases, for the instance at `url`; `strict`: the first request after the change must see it. */
function behaves(url: () => string, strict: boolean): void {
  it('keeps a principal while nothing is notified (so the refusals below come from the notification)', async () => {
    const s = await subject(['issues.view_tracker']);
    // the notifications of the set-up reach another process a little later: let them pass first
    if (!strict) await new Promise((r) => setTimeout(r, 250));
    const client = new Client(url(), s.token);
    expect((await client.get('/api/issue/tracker')).status).to.equal(200);
    await silently((trx) => trx('groups').where('id', s.groupId).update({ permissions: [] }));
    expect((await client.get('/api/issue/tracker')).status).to.equal(200);
  });

  for (const scenario of SCENARIOS) {
    it(scenario.title, async () => {
      const s = await subject(scenario.permissions, scenario.superuser);
      const client = new Client(url(), s.token);
      expect((await client.get(scenario.path)).status).to.equal(200);
      await scenario.change(s);
      if (strict) expect((await client.get(scenario.path)).status).to.equal(scenario.after);
      else await answersSoon(client, scenario.path, scenario.after);
    });
  }

  it('refuses a token the moment it expires', async () => {
    const s = await subject(['issues.view_tracker']);
    const expires = Date.now() + 1500;
    await suite().service.db('api_tokens').where('user_id', s.id).update({ expires: new Date(expires) });
    const client = new Client(url(), s.token);
    expect((await client.get('/api/issue/tracker')).status).to.equal(200);
    await new Promise((r) => setTimeout(r, expires - Date.now() + 10));
    expect((await client.get('/api/issue/tracker')).status).to.equal(401);
  });
}

describe('principal cache', () => {
  describe('in the instance that made the change: at once, before it answered', () => {
    behaves(() => suite().service.url, true);
  });

  describeWithServer('in another instance on the same database: as soon as the notification arrives', 'the embedded database serves one process', function () {
    this.timeout(120_000);
    let other: ServiceProcess | undefined;
    before(async () => {
      other = await startServiceProcess(suite().database, { PRINCIPAL_CACHE_MS: '60000' });
    });
    after(async () => {
      await other?.stop();
    });
    behaves(() => other!.url, false);
  });

  describeWithServer('while the connection listening for changes is down', 'it refuses connections to a server database', function () {
    this.timeout(120_000);
    it('serves nothing from the cache, and uses it again once the connection is back', async () => {
      const { database, admin } = suite();
      const tracker = await created(admin, '/api/issue/tracker', { title: unique('listener') });
      /** Queries of a detail asked right after another: 1 while the cache serves the principal. */
      const secondDetail = async () => {
        await admin.get(`/api/issue/tracker/${tracker.id}`);
        return countQueries(() => admin.get(`/api/issue/tracker/${tracker.id}`));
      };
      expect(await secondDetail()).to.equal(1);
      // ALTER DATABASE … ALLOW_CONNECTIONS needs a connection to another database of the server
      const server = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 1 } });
      const name = new URL(database.databaseUrl!).pathname.slice(1);
      try {
        // the listener cannot come back while the database takes no connections (the pool keeps its open ones)
        await server.raw('alter database ?? allow_connections false', [name]);
        await server.raw('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [`${LISTENER_NAME} ${process.pid}`]);
        expect(await within(5000, async () => (await secondDetail()) === 2), 'bypassed once the listener is lost').to.equal(true);
        for (let i = 0; i < 3; i++) expect(await secondDetail()).to.equal(2);
      } finally {
        await server.raw('alter database ?? allow_connections true', [name]);
        await server.destroy();
      }
      // it retries with backoff, at most 10 s apart
      expect(await within(30_000, async () => (await secondDetail()) === 1), 'cached again once it is back').to.equal(true);
    });
  });
});

describe('PrincipalCache, its bound and deadlines', () => {
  const token = (id: number, expires: number | null = null): CachedToken => ({
    principal: { id, username: `u${id}`, isSuperuser: false, permissions: new Set(), groupIds: [] },
    tokenId: id,
    lastUsed: 0,
    expires,
  });
  const listening = () => {
    const cache = new PrincipalCache(60_000);
    cache.setListening(true);
    return cache;
  };

  it('drops the earliest loaded token beyond its bound, however recently it was used: a hit moves nothing', () => {
    const cache = listening();
    const now = 1_000;
    for (let i = 0; i < MAX_ENTRIES; i++) cache.store(`hash${i}`, token(i), now, cache.beginLoad());
    expect(cache.lookup('hash0', now)?.tokenId).to.equal(0);
    cache.store('one more', token(MAX_ENTRIES), now, cache.beginLoad());
    expect(cache.lookup('hash0', now), 'the first loaded, used just now').to.equal(undefined);
    expect(cache.lookup('hash1', now)?.tokenId).to.equal(1);
    expect(cache.lookup('one more', now)?.tokenId).to.equal(MAX_ENTRIES);
  });

  it('serves an entry until its deadline (time to live or expiry, the earlier), and not from then on', () => {
    const cache = listening();
    cache.store('kept', token(1), 0, cache.beginLoad());
    cache.store('expiring', token(2, 500), 0, cache.beginLoad());
    expect(cache.lookup('expiring', 499)?.tokenId).to.equal(2);
    expect(cache.lookup('expiring', 500)).to.equal(undefined);
    expect(cache.lookup('kept', 59_999)?.tokenId).to.equal(1);
    expect(cache.lookup('kept', 60_000)).to.equal(undefined);
    // gone for good: an earlier time does not bring it back
    expect(cache.lookup('kept', 1)).to.equal(undefined);
  });
});
