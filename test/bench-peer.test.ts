/**
 * `npm run bench` against a peer (bench/peers.ts): the command line's refusals, each peer kind's
 * requests, and a smoke run whose peer is a second instance of this service on a database loaded
 * from the bench's own `--export-sql` file, so it holds the same rows.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { readOptions, UsageError } from '../bench/options.js';
import { PEER_DIALECTS, peerScenarios } from '../bench/peers.js';
import { SCENARIOS, SCENARIO_NAMES } from '../bench/scenarios.js';
import { EXPORTABLE_TABLES } from '../bench/seed.js';
import { withUsage, type Target } from '../bench/targets.js';
import { newTokenKey } from '../engine/auth/tokens.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { manage, run, startServiceProcess, type ServiceProcess } from './support/processes.js';

const options = (...argv: string[]) => readOptions(argv, {});
const refusal = (...argv: string[]) => {
  try {
    options(...argv);
  } catch (err) {
    expect(err).to.be.instanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('bench: the peer options', () => {
  it('refuses what cannot describe a peer or an export, saying why', () => {
    expect(refusal('--peer-url', 'http://127.0.0.1:8055', '--peer-token', 't', '--peer-kind', 'strapi')).to.equal('--peer-kind: unknown "strapi"; expected one of generic, directus, drf.');
    expect(refusal('--peer-url', 'http://127.0.0.1:8055')).to.equal("--peer-url needs --peer-token: a superuser's token at the peer.");
    expect(refusal('--peer-url', 'http://127.0.0.1:8055', '--peer-token', '')).to.equal("--peer-url needs --peer-token: a superuser's token at the peer.");
    expect(refusal('--peer-token', 't')).to.equal('--peer-token describes a peer: give --peer-url too.');
    expect(refusal('--peer-kind', 'drf')).to.equal('--peer-kind describes a peer: give --peer-url too.');
    expect(refusal('--peer-url', 'localhost:8055', '--peer-token', 't')).to.equal('--peer-url expects an http:// or https:// URL, not "localhost:8055".');
    expect(refusal('--peer-url', 'http://x', '--peer-token', 't', '--peer-pid', 'one')).to.equal('--peer-pid expects a whole number of at least 1, not "one".');
    expect(refusal('--peer-url', 'http://x', '--peer-token', 't', '--soak', '60')).to.equal("--peer-url compares the table's scenarios; --soak replaces the table.");
    expect(refusal('--export-sql', 'rows.sql', '--metrics-cost')).to.equal('--metrics-cost and --export-sql each replace the table: give one of them.');
    expect(refusal('--export-tables', 'users')).to.equal('--export-tables chooses what --export-sql writes: give --export-sql FILE too.');
    expect(refusal('--export-sql', 'rows.sql', '--export-tables', 'users,api_tokens')).to.match(/^--export-tables: unknown api_tokens; expected some of users, /);
  });

  it('reads a peer and an export', () => {
    expect(options('--peer-url', 'http://127.0.0.1:8000', '--peer-token', 't')!.peer).to.deep.equal({ url: 'http://127.0.0.1:8000', kind: 'generic', token: 't', viewerToken: undefined, pid: undefined });
    expect(options('--peer-url', 'https://peer.example/', '--peer-token', 't', '--peer-kind', 'directus', '--peer-viewer-token', 'v', '--peer-pid', '42')!.peer).to.deep.equal({
      url: 'https://peer.example/',
      kind: 'directus',
      token: 't',
      viewerToken: 'v',
      pid: 42,
    });
    expect(options()!.peer).to.equal(undefined);
    // in the seed's order whatever the order given, so references load after what they name
    expect(options('--export-sql', 'rows.sql', '--export-tables', 'issue_issue,users,issue_tracker')!.exportSql).to.deep.equal({ file: 'rows.sql', tables: ['users', 'issue_tracker', 'issue_issue'] });
    expect(options('--export-sql', 'rows.sql')!.exportSql!.tables).to.deep.equal([...EXPORTABLE_TABLES]).and.not.include('api_tokens');
  });
});

describe('bench: the peer kinds', () => {
  const scenario = (name: (typeof SCENARIO_NAMES)[number]) => SCENARIOS.find((s) => s.name === name)!;

  it('Directus: /items/issue_issue, filters and search as its query, M2M categories, Bearer, 200 on create; no file scenarios', () => {
    const directus = PEER_DIALECTS.directus;
    const query = (path: string) => decodeURIComponent(directus.request({ method: 'GET', path }).path);
    expect(query('/api/issue/issue/7')).to.equal('/items/issue_issue/7?fields=*,categories.category_id');
    expect(query('/api/issue/issue?tracker=2&state=rejected')).to.equal('/items/issue_issue?filter[tracker_id][_eq]=2&filter[state][_eq]=rejected&fields=*,categories.category_id&limit=-1');
    expect(query('/api/issue/issue?search=77777%3A')).to.equal('/items/issue_issue?search=77777:&fields=*,categories.category_id&limit=-1');
    expect(query('/api/issue/issue/aggregate?group_by=tracker,state')).to.equal('/items/issue_issue?groupBy[]=tracker_id&groupBy[]=state&aggregate[count]=*&limit=-1');
    expect(query('/api/issue/issue?tracker=11&format=csv')).to.equal('/items/issue_issue?filter[tracker_id][_eq]=11&export=csv&fields=*,categories.category_id&limit=-1');
    const created = directus.request({ method: 'POST', path: '/api/issue/issue', body: JSON.stringify({ title: 'T', tracker_id: 1, category_ids: [1, 21] }) });
    expect(JSON.parse(created.body as string)).to.deep.equal({ title: 'T', tracker_id: 1, categories: [{ category_id: 1 }, { category_id: 21 }] });
    expect(directus.request({ method: 'PATCH', path: '/api/issue/issue/3', body: '{"state":"pending"}' }).body).to.equal('{"state":"pending"}');
    expect(directus.authorization('k')).to.equal('Bearer k');
    expect(directus.status(scenario('create'))).to.equal(200);
    expect(directus.status(scenario('patch-title'))).to.equal(200);
    expect(() => directus.request({ method: 'GET', path: '/api/dms/document/1/file' })).to.throw('no peer mapping for GET /api/dms/document/1/file');
    const { runs, skipped } = peerScenarios(directus, SCENARIOS, false);
    expect([...skipped.keys()]).to.deep.equal(['tracker-list-viewer', 'upload', 'download']);
    expect(skipped.get('tracker-list-viewer')).to.equal('no --peer-viewer-token given');
    expect(runs.map((s) => s.name)).to.deep.equal(['detail', 'filtered-list', 'search', 'tracker-list', 'aggregate', 'csv-export', 'create', 'patch-title', 'patch-state']);
  });

  it('DRF: the same paths with a trailing slash and Token; generic: the requests as they are', () => {
    const drf = PEER_DIALECTS.drf;
    expect(drf.request({ method: 'GET', path: '/api/issue/issue/7' }).path).to.equal('/api/issue/issue/7/');
    expect(drf.request({ method: 'GET', path: '/api/issue/issue?tracker=2' }).path).to.equal('/api/issue/issue/?tracker=2');
    expect(drf.authorization('k')).to.equal('Token k');
    expect(drf.status(scenario('create'))).to.equal(201);
    expect(Object.fromEntries(peerScenarios(drf, SCENARIOS, true).skipped)).to.deep.equal({
      aggregate: 'DRF has no standard aggregate route',
      'csv-export': 'DRF renders no CSV without a package of its own',
      upload: "the file routes (PUT/GET …/file as raw bytes) are this service's own; a DRF service has no standard equivalent",
      download: "the file routes (PUT/GET …/file as raw bytes) are this service's own; a DRF service has no standard equivalent",
    });
    const generic = PEER_DIALECTS.generic;
    expect(generic.request({ method: 'PUT', path: '/api/dms/document/1/file' }).path).to.equal('/api/dms/document/1/file');
    expect(peerScenarios(generic, SCENARIOS, true).runs).to.have.length(SCENARIOS.length);
  });
});

/** The Markdown table's rows as cells. */
const tableOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));

describe("bench: the processes' usage", () => {
  // the bench reads Linux's /proc, as its own runs do
  it('sums the processes alive at both ends of a run: one that exits during it is left out, not a failure', async () => {
    const short = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 200)'], { stdio: 'ignore' });
    await once(short, 'spawn');
    const target = { servingPids: () => [process.pid, short.pid!] } as unknown as Target;
    const { result, peakRss, cpuMs } = await withUsage(target, async () => {
      await once(short, 'exit');
      return 'measured';
    });
    expect(result).to.equal('measured');
    // this process's alone: its peak is at least what it holds now
    expect(peakRss).to.be.at.least(process.memoryUsage().rss * 0.5);
    expect(cpuMs).to.be.a('number').and.at.least(0);
    const gone = { servingPids: () => [short.pid!] } as unknown as Target;
    expect(await withUsage(gone, async () => 1)).to.deep.equal({ result: 1, peakRss: undefined, cpuMs: undefined });
  });
});

describeWithServer('bench: a smoke run against a peer', 'the bench creates its database on a server', function () {
  this.timeout(900_000);
  let peerDb: TestDatabase;
  let peer: ServiceProcess | undefined;
  const sql = path.join(os.tmpdir(), `bms-bench-peer-${process.pid}.sql`);
  const tokens = { admin: '', viewer: '' };
  // the bench makes its own database on the server; the peer's is the test's
  /** `work` on the peer's database, on a connection of its own. */
  const onPeer = async <T>(work: (db: Knex) => Promise<T>): Promise<T> => {
    const db = knexFactory({ client: 'pg', connection: peerDb.databaseUrl, pool: { min: 0, max: 1 } });
    try {
      return await work(db);
    } finally {
      await db.destroy();
    }
  };
  const bench = (...args: string[]) => run('bench/bench.js', ['--smoke', '--workers', '1', ...args], peerDb, { DATABASE_URL: process.env.DATABASE_URL! });

  before(async () => {
    peerDb = await createTestDatabase();
    const exported = await bench('--export-sql', sql);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.match(/^Wrote .*: users 1,002, groups 1, .*issue_issue 1,000, issue_issue_categories 1,500, .*dms_document 64 rows\.\n$/);
    const migrated = await manage(peerDb, 'migrate');
    expect(migrated.code, migrated.stderr).to.equal(0);
    await onPeer((db) => db.raw(fs.readFileSync(sql, 'utf8')));
    // the seeded superuser and non-superuser get tokens of the peer's own, as docs/performance.md makes them
    for (const [as, username] of [['admin', 'bench_admin'], ['viewer', 'bench_viewer']] as const) {
      const made = await manage(peerDb, 'createtoken', '--username', username);
      expect(made.code, made.stderr).to.equal(0);
      tokens[as] = made.stdout.trim();
    }
    peer = await startServiceProcess(peerDb);
  });
  after(async () => {
    await peer?.stop();
    fs.rmSync(sql, { force: true });
    await peerDb?.drop();
  });

  it('drives the peer with every scenario, round after round, and prints its rows and the service/peer ratios (the ceiling\'s where it has the scenario)', async () => {
    const logged = (query: string, bindings: number[] = []) => onPeer(async (db) => ((await db.raw(query, bindings)) as { rows: { n: number }[] }).rows[0]!.n);
    const lastLogged = await logged('select max(id)::int as n from state_changes');
    const json = path.join(os.tmpdir(), `bms-bench-peer-${process.pid}.json`);
    // two rounds: the peer keeps what the first wrote, so its second PATCH state run must move issues the first did not
    const { code, stdout, stderr } = await bench('--rounds', '2', '--json', json, '--peer-url', peer!.url, '--peer-token', tokens.admin, '--peer-viewer-token', tokens.viewer, '--peer-pid', String(peer!.child.pid));
    expect(code, stderr).to.equal(0);
    const { rows: measured } = JSON.parse(fs.readFileSync(json, 'utf8')) as { rows: { scenario: string; target: string; requests: number }[] };
    fs.rmSync(json);
    const moves = measured.find((r) => r.scenario === 'patch-state' && r.target === 'peer')!.requests;
    expect(moves).to.equal(200);
    expect(await logged(`select count(distinct record_id)::int as n from state_changes where id > ? and to_state = 'pending'`, [lastLogged])).to.equal(moves);
    const [head, ...rows] = tableOf(stdout);
    expect(head).to.deep.equal(['workers', 'scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MiB', 'CPU ms/req', 'service/ceiling', 'service/peer']);
    // each scenario's rows in the order its targets ran in the first round, the ceiling only where it has the scenario
    const expected = SCENARIOS.flatMap((s) => (s.ceiling ? ['service', 'ceiling', 'peer'] : ['service', 'peer']).map((target) => ({ target, ceiling: s.ceiling })));
    expect(SCENARIOS.filter((s) => !s.ceiling).map((s) => s.name)).to.deep.equal(['aggregate', 'csv-export']);
    expect(rows.map((r) => r[2])).to.deep.equal(expected.map((e) => e.target));
    rows.forEach((row, i) => {
      const [, label, target, rps, , , errors, rss, cpu, toCeiling, toPeer] = row;
      expect(Number(rps!.replace(/,/g, '')), label).to.be.greaterThan(0);
      expect(errors, `${label} ${target}`).to.equal('0');
      // its pid was given: its memory and CPU time are read like the service's
      expect(rss, `${label} ${target}`).to.match(/^[\d,]+$/);
      expect(cpu, `${label} ${target}`).to.match(/^[\d,.]+$/);
      const ratio = target === 'service' ? /^\d+%$/ : /^$/;
      expect(toCeiling, `${label} ${target}`).to.match(expected[i]!.ceiling ? ratio : /^$/);
      expect(toPeer, `${label} ${target}`).to.match(ratio);
    });
    expect(stdout).to.include(`Peer: generic at ${peer!.url}, its memory and CPU time read from process ${peer!.child.pid}; writes to it are not undone between runs.\n`);
  });

  it('stops before measuring when the peer refuses its token, naming the request and the answer', async () => {
    const { code, stdout, stderr } = await bench('--scenarios', 'detail', '--peer-url', peer!.url, '--peer-token', newTokenKey(), '--peer-kind', 'drf');
    expect(code).to.equal(1);
    expect(stdout).to.equal('');
    expect(stderr).to.include(`FAILED: the peer (--peer-kind drf) answered GET ${peer!.url}/api/issue/issue/1/ with 401, not 200: {`);
    expect(stderr).to.include('Check its URL, kind and token, and that it holds the exported rows.');
  });
});
