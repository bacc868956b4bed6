/**
 * Each pooled session keeps its heap (KEEP_HEAP, engine/storage/statements.ts): without it, glibc's
 * malloc in a PostgreSQL backend hands the top of its heap back to the system after any statement
 * that freed more than 128 kB of it, and faults the pages in again on the next run. Counted as the
 * backend's minor page faults (/proc/<pid>/stat), so PostgreSQL must run on this machine.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import pg from 'pg';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { describeWhereAvailable } from './support/conditional-suite.js';
import { describeWithServer } from './support/database.js';
import { suite, testConfig } from './support/hooks.js';

/** Sorts 20,000 numbers: a few hundred kB taken and freed on every run. */
const SORT = { name: 'heap_sort', text: 'select count(*)::int as n from (select n from generate_series(1, 20000) n order by n desc) s' };
const WARM = 5;
const RUNS = 20;
/** Pages a bare session faults in per run at least, where glibc's malloc hands its heap back. */
const BARE_FAULTS = 50;

/**
 * The backend's minor page faults so far; undefined when its process cannot be read here (a server on
 * another machine, whose pid may also be some local process's: hence the name's check).
 */
function faults(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (!stat.includes(' (postgres) ')) return undefined;
    return Number(stat.split(') ')[1]!.split(' ')[7]);
  } catch {
    return undefined;
  }
}

/** Minor page faults per run of SORT on the session of `pid`, after WARM runs; undefined when they cannot be read. */
async function faultsPerRun(run: () => Promise<unknown>, pid: number): Promise<number | undefined> {
  for (let i = 0; i < WARM; i++) await run();
  const before = faults(pid);
  for (let i = 0; i < RUNS; i++) await run();
  const after = faults(pid);
  return before === undefined || after === undefined ? undefined : (after - before) / RUNS;
}

/** A bare session's faults per run (no KEEP_HEAP), on a connection of its own to `url`. */
async function bareFaultsPerRun(url: string): Promise<number | undefined> {
  const bare = new pg.Client({ connectionString: url });
  await bare.connect();
  try {
    const pid = (await bare.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    return await faultsPerRun(() => bare.query(SORT), pid);
  } finally {
    await bare.end();
  }
}

/**
 * Why this machine cannot show the fault, decided as the file loads: nothing to count with PostgreSQL
 * on another machine (its processes are not ours to read) or with a malloc that keeps its heap
 * anyway (not glibc's).
 */
async function unavailable(url: string): Promise<string | undefined> {
  const bare = await bareFaultsPerRun(url);
  if (bare === undefined) return "the server's backend processes, which are not on this machine";
  return bare < BARE_FAULTS ? `a bare session faulted only ${bare} pages per run` : undefined;
}

const server = process.env.DATABASE_URL;
const missing = server ? await unavailable(server) : undefined;

describeWithServer('a session keeps its heap', 'PGlite runs in this process', () =>
  describeWhereAvailable('on a pooled connection', 'a local PostgreSQL whose bare sessions fault their heap in', missing, body),
);

function body(this: Mocha.Suite): void {
  this.timeout(60_000);
  let svc: RunningService | undefined;

  after(async () => {
    await svc?.close();
  });

  it('faults no pages in per statement on a pooled connection, where a bare session faults them on every run', async () => {
    const bare = await bareFaultsPerRun(suite().database.databaseUrl!);
    expect(bare, 'a bare session').to.be.at.least(BARE_FAULTS);
    svc = await startService(testConfig(suite().database, { bounds: { poolSize: 1 }, webhooks: { dispatch: false }, jobs: { run: false } }), createLogger('silent'), { quiet: true });
    const db = svc.db;
    const pid = ((await db.raw('select pg_backend_pid() as pid')) as { rows: { pid: number }[] }).rows[0]!.pid;
    const pooled = await faultsPerRun(() => db.raw(SORT.text), pid);
    expect(pooled, 'the pooled session').to.be.below(5);
  });
}
