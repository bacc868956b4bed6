/**
 * Lists, details and writes run as named prepared statements (engine/storage/statements.ts): a
 * shape of list is parsed once per connection whatever its values, each connection keeps a bounded
 * number of them, closing the least recently used, and searches are planned with their values.
 * Each case runs a service with one pooled connection, so `pg_prepared_statements`, read through
 * that pool, shows that connection's statements.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DatabaseBounds } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { CUSTOM_PLANS } from '../engine/storage/statements.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { describeWithServer } from './support/database.js';
import { unique } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';

const PATH = '/api/glossar/entry';

interface Held {
  name: string;
  statement: string;
  runs: number;
}

describeWithServer('named prepared statements', 'PGlite has no prepared statements of its own', function () {
  this.timeout(60_000);
  let svc: RunningService | undefined;

  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  /** A service with one pooled connection; its client with the superuser's token. */
  async function oneConnection(bounds: Partial<DatabaseBounds> = {}): Promise<Client> {
    svc = await startService(
      testConfig(suite().database, { bounds: { poolSize: 1, ...bounds }, webhooks: { dispatch: false }, jobs: { run: false } }),
      createLogger('silent'),
      { quiet: true },
    );
    return new Client(svc.url, suite().admin.token);
  }

  /** The named statements the one connection holds (reading them is unnamed: it does not count), but CUSTOM_PLANS, which every connection holds outside the bound. */
  const held = async (): Promise<Held[]> =>
    (await svc!.db.raw(`select name, statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements where not from_sql and name <> ?`, [CUSTOM_PLANS.name!])).rows as Held[];

  /** Bytes of the one connection's cached plans (PostgreSQL 14+). */
  const planMemory = async (): Promise<number> =>
    Number((await svc!.db.raw(`select coalesce(sum(total_bytes), 0)::bigint as n from pg_backend_memory_contexts where name in ('CachedPlanSource', 'CachedPlanQuery', 'CachedPlan')`)).rows[0].n);

  /** The SQL texts the service sends while `work` runs. */
  async function sent(work: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const listener = ({ sql }: { sql: string }) => void seen.push(sql);
    svc!.db.on('query', listener);
    try {
      await work();
    } finally {
      svc!.db.removeListener('query', listener);
    }
    return seen;
  }

  it('parses a shape of list once per connection, whatever its values', async () => {
    const client = await oneConnection();
    const lists = [5, 6, 7].map((n) => `${PATH}?archived=false&limit=${n}`);
    const texts = await sent(async () => {
      for (const url of lists) expect((await client.get(url)).status).to.equal(200);
    });
    const list = texts.filter((t) => t.includes('glossar_entry'));
    expect(new Set(list).size, 'one text for the three lists').to.equal(1);
    const mine = (await held()).filter((h) => h.statement === list[0]);
    expect(mine, 'one statement holds the three runs').to.have.length(1);
    expect(mine[0]!.runs).to.equal(3);
  });

  it('keeps at most DATABASE_PREPARED_STATEMENTS per connection, closing the least recently used, and prepares it again when asked', async () => {
    const client = await oneConnection({ preparedStatements: 2 });
    const orderings = ['title', '-title', 'created', 'title'];
    const seen: string[][] = [];
    for (const ordering of orderings) {
      const texts = await sent(async () => expect((await client.get(`${PATH}?ordering=${ordering}&limit=2`)).status).to.equal(200));
      seen.push(texts.filter((t) => t.includes('glossar_entry')));
      const now = await held();
      expect(now.length, `after ordering=${ordering}`).to.be.at.most(2);
      expect(now.map((h) => h.statement), 'the list just run is held').to.include(seen.at(-1)![0]);
    }
    // `title` was closed when `created` came, and was prepared again without an error
    const [first, , third, fourth] = seen.map((s) => s[0]);
    expect(fourth).to.equal(first);
    expect((await held()).map((h) => h.statement)).to.have.members([third, fourth]);
  });

  it('holds an issue list statement in well under a megabyte of server memory (64 kB here), so the 100 a connection keeps stay within a few MB', async () => {
    const client = await oneConnection();
    const before = await planMemory();
    for (const url of ['/api/issue/issue?limit=5', '/api/issue/issue?limit=5&ordering=-modified', '/api/issue/issue?limit=5&state=new']) {
      expect((await client.get(url)).status).to.equal(200);
      expect((await client.get(url)).status).to.equal(200);
    }
    const each = (await planMemory()) - before;
    // the figure the docs give (docs: "Prepared statements"), with room for another PostgreSQL version
    expect(each / 3, `bytes per issue list statement: ${each / 3}`).to.be.below(1024 * 1024);
  });

  it('runs no named statement with DATABASE_PREPARED_STATEMENTS=0 (a transaction pool that does not track them)', async () => {
    const client = await oneConnection({ preparedStatements: 0 });
    const made = await client.post(PATH, { title: unique('unnamed'), description: 'x' });
    expect(made.status, made.text).to.equal(201);
    expect((await client.get(`${PATH}/${made.body.id}`)).status).to.equal(200);
    expect((await client.get(`${PATH}?limit=3`)).status).to.equal(200);
    expect((await client.get(`${PATH}?search=abc`)).status, 'a search: unnamed, without CUSTOM_PLANS').to.equal(200);
    expect((await svc!.db.raw('select name from pg_prepared_statements')).rows).to.deep.equal([]);
  });

  it('plans searches and substring filters with their values on every run, parsed once: a named statement that never runs a generic plan', async () => {
    const client = await oneConnection();
    // more runs than the five custom plans after which PostgreSQL may settle on a generic one
    for (let i = 0; i < 8; i++) expect((await client.get(`${PATH}?search=${i % 2 ? 'ab' : 'abc def'}`)).status).to.equal(200);
    for (let i = 0; i < 8; i++) expect((await client.get(`${PATH}?title=entry`)).status).to.equal(200);
    expect((await client.get(`${PATH}?limit=1`)).status).to.equal(200);
    const plans = (await svc!.db.raw(`select statement, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where not from_sql and statement like '% ilike $%'`)).rows as { statement: string; generic: number; custom: number }[];
    expect(plans.length, 'one statement per shape: two of search, one of the substring filter').to.equal(3);
    expect(plans.map((p) => p.generic)).to.deep.equal([0, 0, 0]);
    expect(plans.map((p) => p.custom).sort()).to.deep.equal([4, 4, 8]);
    const statements = (await held()).map((h) => h.statement);
    expect(statements.some((s) => s.includes('glossar_entry') && !s.includes(' ilike ')), 'the plain list is named').to.equal(true);
    // the same plain list afterwards: CUSTOM_PLANS held only for the statement it ran with
    const setting = await svc!.db.raw('show plan_cache_mode');
    expect(setting.rows[0].plan_cache_mode).to.equal('auto');
  });

  it('plans the probe of a list that may outgrow a head with its values too (its LIMIT under a generic plan may walk the table in key order), and leaves the setting with its transaction', async () => {
    const client = await oneConnection();
    // a uuid no record has, each time: an empty list, whatever other suites left in the table
    for (let i = 0; i < 8; i++) expect((await client.get(`${PATH}?uuid=${randomUUID()}`)).status).to.equal(200);
    const probes = (await held()).filter((h) => h.statement.includes('glossar_entry') && h.statement.includes('w_rows'));
    expect(probes, 'one probe for the shape').to.have.length(1);
    const plans = (await svc!.db.raw(`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement = ?`, [probes[0]!.statement])).rows;
    expect(plans).to.deep.equal([{ generic: 0, custom: 8 }]);
    expect((await svc!.db.raw('show plan_cache_mode')).rows[0].plan_cache_mode).to.equal('auto');
  });
});
