/**
 * `npm run bench`: a fresh database seeded by SQL, then the service and the raw ceiling driven
 * alike, scenario by scenario, alternating which goes first in each round, for each worker count;
 * and, when a peer is given (--peer-url), that other service too, with the scenarios its kind can express;
 * then the whole issue table as one list, read by one client (the time per row), and exported as
 * CSV and XLSX (rows per second, resident memory).
 * Prints one table (stdout; progress on stderr) and exits 1 when a request failed or the ceiling's
 * answers differ from the service's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkAgreement, Disagreement } from './agreement.js';
import { CEILING_CAPTURES } from './ceiling-sql.js';
import { createBenchDatabase } from './database.js';
import { runLoad, type LoadShape } from './load.js';
import { exportSql } from './export-sql.js';
import { readOptions, UsageError, USAGE, type BenchOptions, type PeerOptions } from './options.js';
import { checkPeer, PeerRefused, peerTarget } from './peer-target.js';
import { PEER_DIALECTS, peerScenarios } from './peers.js';
import { render, tabulate, type Run } from './report.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { runSoak, soakReport } from './soak.js';
import { restoreWrites, seedBenchData, type BenchData } from './seed.js';
import { send, withTargets, type Target, type Targets } from './targets.js';
import { measureWholeList } from './whole-list.js';
import { measureImport } from './import-rate.js';
import { measureWholeExport } from './whole-export.js';
import { measureMetricsCost } from './metrics-cost.js';
import { measureFrameworkFloor } from './framework-floor.js';
import { fileMemoryReport, measureFileMemory } from './file-memory.js';
import type { Knex } from 'knex';

const say = (line: string) => void process.stderr.write(`${line}\n`);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** One run, with the data put back afterwards when the scenario writes. */
async function measure(db: Knex, data: BenchData, target: Target, scenario: Scenario, shape: LoadShape) {
  try {
    await scenario.prepare?.((req) => send(target, data, req), data);
    return await runLoad(target, scenario, data, shape);
  } finally {
    if (scenario.writes) await restoreWrites(db, data);
  }
}

/** A peer and the scenarios it runs. */
interface Peer {
  target: Target;
  runs: readonly Scenario[];
}

/** The scenarios of one pair of processes (and the peer): warm-up, then the rounds, the target that goes first alternating. */
async function measureGroup(options: BenchOptions, db: Knex, data: BenchData, workers: number, scenarios: readonly Scenario[], targets: Targets, peer: Peer | undefined): Promise<Run[]> {
  const shape: LoadShape = { connections: options.connections, duration: options.duration, requests: options.requests };
  const targetsOf = (scenario: Scenario) => [targets.service, ...(scenario.ceiling ? [targets.ceiling] : []), ...(peer?.runs.includes(scenario) ? [peer.target] : [])];
  if (options.warmup > 0) for (const scenario of scenarios) for (const target of targetsOf(scenario)) await measure(db, data, target, scenario, { ...shape, duration: options.warmup, requests: undefined });
  const runs: Run[] = [];
  for (const scenario of scenarios) {
    for (let round = 1; round <= options.rounds; round++) {
      const all = targetsOf(scenario);
      // no target always meets another's leftovers (dead rows, a warm cache)
      for (const target of round % 2 ? all : [...all].reverse()) {
        const m = await measure(db, data, target, scenario, shape);
        runs.push({ workers, scenario: scenario.name, label: scenario.label(data), target: target.kind, measurement: m });
        say(`  ${workers}w ${scenario.name.padEnd(19)} round ${round} ${target.kind.padEnd(7)} ${m.rps.toFixed(1).padStart(8)} req/s p99 ${m.p99} ms errors ${m.errors}`);
      }
    }
  }
  return runs;
}

/**
 * Every scenario on processes of its own (unless --shared-processes), so its peak memory is its
 * own and not what an earlier scenario left; the answers are checked on a pair of their own first.
 */
async function runWorkers(options: BenchOptions, db: Knex, url: string, data: BenchData, workers: number, scenarios: readonly Scenario[], peer: Peer | undefined): Promise<Run[]> {
  const ceilingSettings: Record<string, string> = options.ceilingCaptures ? { [CEILING_CAPTURES]: 'true' } : {};
  const agreed = await withTargets(url, workers, ({ service, ceiling }) => checkAgreement(service, ceiling, data, db), ceilingSettings);
  say(`${workers} worker(s): the ceiling answers as the service does (${agreed.reads} reads, ${agreed.identical} byte for byte; ${agreed.writes} writes).`);
  const runs: Run[] = [];
  for (const group of options.sharedProcesses ? [scenarios] : scenarios.map((s) => [s])) {
    runs.push(...(await withTargets(url, workers, (targets) => measureGroup(options, db, data, workers, group, targets, peer), ceilingSettings)));
  }
  return runs;
}

/** Below the table: what the peer is, and the scenarios it did not run. */
function peerNotes(peer: PeerOptions, skipped: ReadonlyMap<string, string>): string {
  const measured = peer.pid === undefined ? 'its memory and CPU time unknown (no --peer-pid)' : `its memory and CPU time read from process ${peer.pid}`;
  return (
    `Peer: ${peer.kind} at ${peer.url}, ${measured}; writes to it are not undone between runs.\n` +
    [...skipped].map(([name, why]) => `  not run on the peer: ${name} (${why})\n`).join('')
  );
}

async function main(options: BenchOptions): Promise<number> {
  // the stored files of both targets (BMS_DATA_DIR), removed at the end
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-bench-files-'));
  process.env.BMS_DATA_DIR = files;
  try {
    return await measureAll(options);
  } finally {
    fs.rmSync(files, { recursive: true, force: true });
  }
}

async function measureAll(options: BenchOptions): Promise<number> {
  let began = Date.now();
  const bench = await createBenchDatabase(options.serverUrl);
  say(`Created and migrated ${bench.url.replace(/\/\/[^@/]*@/, '//')} in ${seconds(began)}.`);
  try {
    began = Date.now();
    const data = await seedBenchData(bench.db, options.issues);
    say(`Seeded ${options.issues.toLocaleString('en-US')} issues in ${seconds(began)}.`);
    if (options.exportSql) {
      const counts = await exportSql(bench.db, options.exportSql.file, options.exportSql.tables, options.issues);
      process.stdout.write(`Wrote ${options.exportSql.file}: ${Object.entries(counts).map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`).join(', ')} rows.\n`);
      return 0;
    }
    if (options.soak !== undefined) {
      const { text, passed } = soakReport(await runSoak(bench.db, bench.url, data, options.soak, options.connections, options.workers[0]!), options.soak, options.connections);
      process.stdout.write(`\n${text}\n`);
      return passed ? 0 : 1;
    }
    if (options.fileMemory !== undefined) {
      const measured = await measureFileMemory(bench.url, data, options.fileMemory);
      process.stdout.write(`\n${fileMemoryReport(measured)}\n`);
      return measured.passed ? 0 : 1;
    }
    const mode = options.metricsCost ? measureMetricsCost : options.frameworkFloor ? measureFrameworkFloor : undefined;
    if (mode) {
      const { text, failed } = await mode(options, bench.db, bench.url, data, measure);
      process.stdout.write(`\n${text}\n`);
      return failed ? 1 : 0;
    }
    const scenarios = SCENARIOS.filter((s) => options.scenarios.includes(s.name));
    const peer = options.peer && { options: options.peer, target: peerTarget(options.peer), ...peerScenarios(PEER_DIALECTS[options.peer.kind], scenarios, options.peer.viewerToken !== undefined) };
    if (peer) {
      await checkPeer(peer.target, data, peer.options.kind);
      say(`The peer (${peer.options.kind}) at ${peer.target.url} answers; it runs ${peer.runs.length} of the ${scenarios.length} scenarios.`);
    }
    const runs: Run[] = [];
    for (const workers of options.workers) runs.push(...(await runWorkers(options, bench.db, bench.url, data, workers, scenarios, peer)));
    // a write in flight when a run's load stopped may have landed after its clean-up; its processes are gone now
    await restoreWrites(bench.db, data);
    const whole = await withTargets(bench.url, 1, ({ service }) => measureWholeList(service, data));
    const exports = await withTargets(bench.url, 1, async ({ service }) => [await measureWholeExport(service, data, 'csv'), await measureWholeExport(service, data, 'xlsx')]);
    // last: it adds its rows to the table the lists read
    const imported = await withTargets(bench.url, 1, ({ service }) => measureImport(service, data));
    const rows = tabulate(runs);
    const { rows: [pgVersion] } = (await bench.db.raw('show server_version')) as { rows: { server_version: string }[] };
    const per = options.requests === undefined ? `${options.duration} s` : `${options.requests} requests`;
    process.stdout.write(
      `\n${os.cpus().length} CPUs, Node ${process.version}, PostgreSQL ${pgVersion?.server_version}; ${options.issues.toLocaleString('en-US')} issues, ` +
        `${options.connections} connections, ${per} per run, median of ${options.rounds} round(s); the ceiling's writes ${options.ceilingCaptures ? 'captured as the service\'s (--ceiling-captures)' : 'without the audit trail'}\n\n${render(rows)}\n` +
        `\nWhole-table list (one client, 1 worker, median of 3): ${whole.rows.toLocaleString('en-US')} rows in ${whole.seconds.toFixed(2)} s, ${whole.microsecondsPerRow.toFixed(2)} µs per row, ` +
        `first byte after ${whole.firstByteMs.toFixed(0)} ms, resident memory up ${whole.rssRiseMiB.toFixed(1)} MiB\n` +
        exports.map((e) => `Whole-table export as ${e.format.toUpperCase()} (one client, 1 worker): ${e.rows.toLocaleString('en-US')} rows in ${e.seconds.toFixed(2)} s, ${Math.round(e.rowsPerSecond).toLocaleString('en-US')} rows/s, ${(e.bytes / 2 ** 20).toFixed(1)} MiB, resident memory up ${e.rssRiseMiB.toFixed(1)} MiB\n`).join('') +
        `Import (CSV, background job, 1 worker): ${imported.rows.toLocaleString('en-US')} issues in ${imported.seconds.toFixed(1)} s, ${imported.rowsPerSecond.toFixed(0)} rows/s\n` +
        (peer ? peerNotes(peer.options, peer.skipped) : ''),
    );
    if (options.json) fs.writeFileSync(options.json, `${JSON.stringify({ options: { ...options, peer: options.peer && { ...options.peer, token: undefined, viewerToken: undefined } }, cpus: os.cpus().length, node: process.version, rows, wholeList: whole, wholeExports: exports, import: imported }, null, 2)}\n`);
    const failed = rows.filter((r) => r.errors > 0);
    for (const r of failed) {
      const kinds = Object.entries(r.failures).map(([kind, n]) => `${n} ${/^\d+$/.test(kind) ? `answered ${kind}` : kind}`);
      const scenario = SCENARIOS.find((s) => s.name === r.scenario)!;
      const status = r.target === 'peer' && peer ? peer.target.dialect.status(scenario) : scenario.status;
      say(`FAILED: ${r.label}, ${r.target}, ${r.workers} worker(s): ${r.errors} request(s) did not get ${status} (${kinds.join(', ')}).`);
    }
    return failed.length ? 1 : 0;
  } finally {
    if (options.keep) say(`Kept the database: ${bench.url}`);
    else await bench.drop();
  }
}

try {
  const options = readOptions(process.argv.slice(2), process.env);
  if (!options) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  process.exit(await main(options));
} catch (err) {
  if (err instanceof UsageError) say(`${err.message}\n\n${USAGE}`);
  else if (err instanceof Disagreement) say(`FAILED: the ceiling does not answer as the service does: ${err.message}`);
  else if (err instanceof PeerRefused) say(`FAILED: ${err.message}`);
  else throw err;
  process.exit(err instanceof UsageError ? 2 : 1);
}
