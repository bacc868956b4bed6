/**
 * The issue list's filters, its search and its default ordering read issue_issue through indexes,
 * at a size where a missing index shows: 50,000 issues in 10,000 trackers, analysed. Each case
 * calls the real endpoint, takes the SQL the service ran from Knex's `query` event, and asks
 * PostgreSQL for its plan with the same bound values: no sequential scan of the listed table.
 * The trackers' title filter (a substring lookup) is checked the same way on issue_tracker.
 */
import { expect } from 'chai';
import { withoutCapture } from '../engine/audit/actor.js';
import pg from 'pg';
import { filtersOf } from '../engine/crud/filters.js';
import { describeWithServer } from './support/database.js';
import { suite } from './support/hooks.js';
import { unique } from './support/fixtures.js';
import { Samples } from './support/samples.js';
import { statementsOf, type Statement } from './support/queries.js';

const ISSUES = 50_000;
const TRACKERS = 10_000;
/** SQL: a 22-character word of letters and digits, different for each value of `n`. */
const WORD = (n: string) => `translate(encode(decode(md5((${n})::text), 'hex'), 'base64'), '+/=', '')`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** EXPLAIN ANALYZE's: how many times the node ran. */
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** What the cases pick from the data once it is in. */
interface Picked {
  issue: { uuid: string; remote_key: string; tracker_id: number };
  category: number;
  process: number;
  user: number;
  /** A user of the suite's own, contributing to one issue in a thousand. */
  contributor: number;
  /** Eight characters of one issue's title, in no other row. */
  word: string;
}

interface Case {
  name: string;
  /** The list's query string. */
  query: (p: Picked) => string;
  /** The filter parameters it exercises. */
  covers: string[];
  /** The index it must read, where it matters which. */
  index?: RegExp;
  /** Another list than the issues'. */
  list?: { path: string; table: string };
}

const trigram = /^issue_issue_(title|description)_trgm$/;
const CASES: Case[] = [
  { name: 'state', covers: ['state'], query: () => 'state=effectiveness_check' },
  { name: 'deadline bounds', covers: ['deadline_from', 'deadline_to'], query: () => 'deadline_from=2024-06-01&deadline_to=2024-06-03' },
  { name: 'deadline range', covers: ['deadline__range'], query: () => 'deadline__range=2024-06-01,2024-06-03' },
  { name: 'no deadline', covers: ['deadline__isnull'], query: () => 'deadline__isnull=true' },
  // as tracker_id in (trackers of that visibility), not a value computed per issue
  { name: 'classification', covers: ['classification'], query: () => 'classification=secret', index: /^issue_issue_tracker_id_index$/ },
  { name: 'tracker', covers: ['tracker'], query: (p) => `tracker=${p.issue.tracker_id}` },
  { name: 'assigned user', covers: ['assigned_user'], query: (p) => `assigned_user=${p.user}` },
  { name: 'category', covers: ['categories'], query: (p) => `categories=${p.category}` },
  { name: 'contributor', covers: ['contributors'], query: (p) => `contributors=${p.contributor}` },
  { name: 'process', covers: ['processes'], query: (p) => `processes=${p.process}` },
  { name: 'uuid', covers: ['uuid'], query: (p) => `uuid=${p.issue.uuid}` },
  { name: 'remote key', covers: ['remote_key'], query: (p) => `remote_key=${p.issue.remote_key}` },
  { name: 'created between', covers: ['created_after', 'created_before'], query: () => 'created_after=2024-01-10T00:00:00Z&created_before=2024-01-10T00:30:00Z' },
  { name: 'modified between', covers: ['modified_after', 'modified_before'], query: () => 'modified_after=2024-03-10T00:00:00Z&modified_before=2024-03-10T00:30:00Z' },
  { name: 'search, one word', covers: ['search'], query: (p) => `search=${p.word}`, index: trigram },
  // each word must match: one in every title, one rare
  { name: 'search, two words', covers: ['search'], query: (p) => `search=issue%20${p.word.toUpperCase()}`, index: trigram },
  { name: 'default ordering (by id), a page', covers: [], query: () => 'limit=20' },
  { name: 'newest changes first, a page', covers: [], query: () => 'ordering=-modified&limit=20' },
  { name: 'trackers: title substring', covers: [], query: (p) => `title=${p.word}`, index: /^issue_tracker_title_trgm$/, list: { path: '/api/issue/tracker', table: 'issue_tracker' } },
];

/** The indexes a read of a table uses: an index scan's own, a bitmap heap scan's those of the bitmaps beneath it. */
function indexesRead(n: PlanNode): string[] {
  if (n['Index Name']) return [n['Index Name']];
  return (n.Plans ?? []).filter((c) => c['Node Type'].startsWith('Bitmap')).flatMap(indexesRead);
}

// PGlite plans alike, but its single-threaded WebAssembly build takes minutes to fill and index
// 50,000 rows, and the embedded database is for small installations: the plans that matter at
// this size are the server's
describeWithServer('lists read through indexes (EXPLAIN at 50,000 issues)', 'the plans at this size are the server\'s', function () {
  this.timeout(120_000);
  const tag = unique('scale');
  let explainer: pg.Client;
  let picked: Picked;
  let contributor = 0;

  before(async function () {
    const { admin, adminId, service } = suite();
    const { db } = service;
    const process = await new Samples(admin).create(service.app.services.get('process/process')!.resource);

    // set-based, as a bulk load would be: trackers, one in a thousand confidential (classification
    // secret), five issues in each, their values spread so that each case selects few rows. Titles
    // and descriptions carry a word of random letters and digits each, as varied as text's trigrams
    // (hex digits would make every trigram common)
    // a bulk load, as the seed's: not captured (no audit entries or webhook events for its rows)
    await service.db.transaction(async (db) => {
      await withoutCapture(db);
      await db.raw(
        `insert into issue_tracker (title, description, state, visibility, public_form, created_by)
         select ? || ' tracker ' || n || ' ' || ${WORD('n')}, 'About tracker ' || n, 'approved',
           case n % 1000 when 0 then 'confidential' when 1 then 'protected' else 'normal' end, false, ?
         from generate_series(1, ?) n`,
        [tag, adminId, TRACKERS],
      );
      await db.raw(
        `insert into issue_issue (title, description, state, deadline, archived, tracker_id, assigned_user_id, remote_key, created, modified, created_by)
         select 'Issue ' || n || ' ' || ${WORD('n')}, 'Reported ' || ${WORD('n * 31')},
           case when n % 100 = 0 then 'effectiveness_check' when n % 3 = 0 then 'active' else 'new' end,
           case when n % 100 = 1 then null else date '2024-01-01' + n % 1000 end,
           n % 10 = 0, trackers.ids[1 + n % ?], case when n % 100 = 2 then ?::integer end, ? || '-' || n,
           timestamptz '2024-01-01 00:00Z' + n * interval '1 minute', timestamptz '2024-03-01 00:00Z' + n * interval '1 minute', ?
         from generate_series(1, ?) n,
           (select array_agg(id order by id) as ids from issue_tracker where title like ? || ' %') trackers`,
        [TRACKERS, adminId, tag, adminId, ISSUES, tag],
      );
      // a category in each of the first hundred trackers, on their issues; the suite's own user
      // contributes to one issue in a thousand (the admin's links, which other suites leave behind in
      // the shared database, would make its statistics theirs), and the process concerns one in a thousand
      const mine = `(select id, tracker_id from issue_issue where remote_key like ? || '-%') i`;
      await db.raw(
        `insert into issue_category (title, tracker_id, created_by)
         select ? || ' area ' || id, id, ? from issue_tracker where title like ? || ' %' order by id limit 100`,
        [tag, adminId, tag],
      );
      await db.raw(`insert into issue_issue_categories (issue_id, category_id) select i.id, c.id from ${mine} join issue_category c on c.tracker_id = i.tracker_id`, [tag]);
      contributor = ((await db.raw(`insert into users (username) values (? || '-contributor') returning id`, [tag])).rows as { id: number }[])[0]!.id;
      await db.raw(`insert into issue_issue_contributors (issue_id, user_id) select id, ? from ${mine} where id % 1000 = 3`, [contributor, tag]);
      await db.raw(`insert into issue_issue_processes (issue_id, process_id) select id, ? from ${mine} where id % 1000 = 4`, [process.id, tag]);
    });
    // statistics, as autovacuum would gather them; vacuum also moves the rows GIN inserts queue in
    // its pending list into the index proper, whose size the planner's estimate then reads
    for (const table of ['issue_tracker', 'issue_category', 'issue_issue', 'issue_issue_categories', 'issue_issue_contributors', 'issue_issue_processes']) {
      await db.raw('vacuum analyze ??', [table]);
    }

    const one = async (sql: string, bindings: unknown[]) => ((await db.raw(sql, bindings as never)).rows as any[])[0];
    picked = {
      issue: await one(`select uuid::text as uuid, remote_key, tracker_id from issue_issue where remote_key = ? || '-777'`, [tag]),
      category: (await one(`select min(id) as id from issue_category where title like ? || ' area %'`, [tag])).id,
      process: process.id,
      user: adminId,
      contributor,
      word: (await one(`select substr(${WORD('777')}, 3, 8) as w`, [])).w,
    };
    explainer = new pg.Client({ connectionString: suite().database.databaseUrl });
    await explainer.connect();
  });

  after(async function () {
    this.timeout(60_000);
    if (picked) {
      // the later suites share the database, and some list every issue; on a connection of its own,
      // without the service's statement timeout (50,000 deletes and their captures take a while on a busy machine)
      await explainer.query(`delete from issue_issue where remote_key like $1 || '-%'`, [tag]);
      await explainer.query(`delete from issue_tracker where title like $1 || ' %'`, [tag]);
      await explainer.query(`delete from users where username = $1 || '-contributor'`, [tag]);
      await explainer.query('analyze issue_tracker, issue_category, issue_issue');
    }
    await explainer?.end();
  });

  /**
   * The list statements the service runs for `path`, as Knex reported them: one, or a list's probe
   * and its whole statement when it goes on (text-pieces.ts probedPieces).
   */
  async function listQueries(path: string, table: string): Promise<Statement[]> {
    const seen = await statementsOf(async () => {
      const res = await suite().admin.get(path);
      expect(res.status, res.text).to.equal(200);
      // a few of many: where a list is most of the table, a scan is the right plan
      expect(res.body, path).to.have.length.within(1, ISSUES / 20);
    });
    const lists = seen.filter((q) => q.sql.includes(`from "${table}" t where`));
    expect(lists, `the list queries on ${table}`).to.have.length.within(1, 2);
    return lists;
  }

  /** The one list query the service runs for `path`. */
  async function listQuery(path: string, table: string): Promise<Statement> {
    const lists = await listQueries(path, table);
    expect(lists, `one list query on ${table}`).to.have.length(1);
    return lists[0]!;
  }

  async function plan(q: Statement, analyse = false): Promise<PlanNode> {
    const { rows } = await explainer.query(`explain (${analyse ? 'analyze, ' : ''}format json) ${q.sql}`, q.bindings);
    return (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
  }

  it('builds the records of a deep page only, not of the rows its offset skips', async () => {
    const executed = nodes(await plan(await listQuery(`/api/issue/issue?limit=10&offset=${ISSUES - 100}`, 'issue_issue'), true));
    // each record's categories are a subquery on their join table: run once per record built
    const loops = executed.filter((n) => n['Relation Name'] === 'issue_issue_categories').map((n) => n['Actual Loops']);
    expect(loops).to.not.deep.equal([]);
    expect(Math.max(...(loops as number[])), 'the categories subquery runs for the 10 records served').to.be.at.most(10);
  });

  it('covers every filter of the issue list but archived (a boolean: no index, see the index policy)', () => {
    const filters = filtersOf(suite().service.app.services.get('issue/issue')!.resource).map((f) => f.param);
    const covered = CASES.filter((c) => !c.list).flatMap((c) => c.covers);
    expect(filters.filter((p) => !covered.includes(p))).to.deep.equal(['archived']);
  });

  // why searches run unnamed (engine/storage/statements.ts): one generic plan serves every word,
  // and for a page of a search (ordered by id, as clients page) it walks the primary key filtering
  // each row, which reads the whole table for a rare word, where the plan made for the word reads
  // the trigram index
  it('search: a generic plan of a page reads more than the plan made with the word, so searches are planned with their words', async () => {
    const q = await listQuery(`/api/issue/issue?search=${picked.word}&limit=20`, 'issue_issue');
    // EXPLAIN takes no parameters: the values as literals
    const args = q.bindings.map((v) => (v === null ? 'null' : explainer.escapeLiteral(String(v)))).join(', ');
    const blocks = async (mode: string) => {
      await explainer.query(`set plan_cache_mode = ${mode}`);
      const { rows } = await explainer.query(`explain (analyze, buffers, format json) execute word_search(${args})`);
      const top = (rows[0]['QUERY PLAN'] as { Plan: Record<string, number> }[])[0]!.Plan;
      return top['Shared Hit Blocks']! + top['Shared Read Blocks']!;
    };
    await explainer.query(`prepare word_search as ${q.sql}`);
    try {
      const custom = await blocks('force_custom_plan');
      const generic = await blocks('force_generic_plan');
      expect(generic, `blocks read: generic ${generic}, with the word ${custom}`).to.be.greaterThan(custom * 2);
    } finally {
      await explainer.query('reset plan_cache_mode');
      await explainer.query('deallocate word_search');
    }
  });

  for (const c of CASES) {
    const { path, table } = c.list ?? { path: '/api/issue/issue', table: 'issue_issue' };
    it(`${c.name}: reads ${table} through ${c.index ? `an index like ${c.index.source}` : 'an index'}`, async () => {
      const url = `${path}?${c.query(picked)}`;
      const reads: PlanNode[] = [];
      for (const q of await listQueries(url, table)) reads.push(...nodes(await plan(q)).filter((n) => n['Relation Name'] === table));
      const shown = `${url}: ${reads.map((n) => [n['Node Type'], ...indexesRead(n)].join(' ')).join(', ')}`;
      expect(reads.map((n) => n['Node Type']), shown).to.not.include('Seq Scan');
      const indexes = reads.flatMap(indexesRead);
      expect(indexes, shown).to.not.deep.equal([]);
      if (c.index) expect(indexes.some((n) => c.index!.test(n)), shown).to.equal(true);
    });
  }
});
