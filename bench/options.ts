/** The bench's command line: `npm run bench -- [options]`. */
import { parseArgs } from 'node:util';
import { SCENARIO_NAMES } from './scenarios.js';

export interface BenchOptions {
  /** The server the bench database is created on (its own database is used as the maintenance one). */
  serverUrl: string;
  issues: number;
  rounds: number;
  /** Seconds per measured run, unless `requests` is set. */
  duration: number;
  /** A fixed number of requests per run instead of a duration (the smoke run). */
  requests: number | undefined;
  /** Unmeasured seconds per scenario and target before the first round (JIT, caches, pools). */
  warmup: number;
  connections: number;
  workers: number[];
  scenarios: string[];
  /** One service and one ceiling per worker count for every scenario, instead of a pair per scenario. */
  sharedProcesses: boolean;
  /** Where the table goes as JSON too. */
  json: string | undefined;
  keep: boolean;
  /** Seconds of the soak (bench/soak.ts) run instead of the table. */
  soak: number | undefined;
  /** The cost of METRICS=true (bench/metrics-cost.ts) instead of the table. */
  metricsCost: boolean;
  /** Instead of the table: one file of this many MiB uploaded and downloaded, the service's resident memory watched. */
  fileMemory: number | undefined;
}

export class UsageError extends Error {}

const DEFAULT_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

export const USAGE = `Usage: npm run bench -- [options]

Seeds a new database bms_bench_<random> on DATABASE_URL's server (default ${DEFAULT_SERVER}),
runs the service and the raw ceiling (bench/ceiling.ts) side by side, and prints one table.

  --issues N           issues to seed (default 100000)
  --rounds N           measured rounds; service and ceiling alternate in each (default 3)
  --duration S         seconds per measured run (default 10)
  --requests N         a fixed number of requests per run instead of --duration (at least --connections)
  --warmup S           unmeasured seconds per scenario and target before its rounds (default 2)
  --connections N      concurrent connections (default 32)
  --workers LIST       WEB_CONCURRENCY values to run, comma-separated (default 1,2)
  --scenarios LIST     scenarios to run, comma-separated (default all: ${SCENARIO_NAMES.join(', ')})
  --shared-processes   one service and one ceiling per worker count for all scenarios, not a fresh
                       pair per scenario (quicker; peak RSS then carries earlier scenarios' memory)
  --json FILE          write the table as JSON too
  --keep               keep the database at the end (its URL is printed)
  --smoke              tiny and quick: --issues 1000 --rounds 1 --requests 100 --warmup 0 --shared-processes
  --soak S             instead of the table: S seconds of mixed reads and writes on the service alone
                       (--connections default 64, --workers default 1, --issues default 20000), its
                       memory sampled every 10 s; fails on any failed request, lost write or rising memory
  --metrics-cost       instead of the table: issue details on two services side by side, METRICS off
                       and on (the first of --workers), req/s and CPU per request of each
  --file-memory MIB    instead of the table: one file of MIB MiB (e.g. 1024) uploaded to and downloaded
                       from the service (1 worker), its resident memory's rise over each reported;
                       exit code 1 when a rise reaches 64 MiB
  --help               this text

Exits 1 when any request failed, the ceiling's answers differ from the service's, or the soak failed.`;

const DEFAULTS = { issues: 100_000, rounds: 3, duration: 10, requests: undefined as number | undefined, warmup: 2, connections: 32, workers: '1,2', sharedProcesses: false };
const SMOKE = { ...DEFAULTS, issues: 1000, rounds: 1, requests: 100, warmup: 0, sharedProcesses: true };
const SOAK = { ...DEFAULTS, issues: 20_000, connections: 64, workers: '1' };

function count(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} expects a whole number of at least ${min}, not "${raw}".`);
  return Number(raw);
}

function list(name: string, raw: string, known?: readonly string[]): string[] {
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = known ? items.filter((i) => !known.includes(i)) : [];
  if (items.length === 0 || unknown.length) throw new UsageError(`--${name}: unknown ${unknown.join(', ') || 'empty list'}; expected some of ${known?.join(', ') ?? 'values'}.`);
  return items;
}

/** undefined: --help was asked for. */
export function readOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: {
        issues: { type: 'string' },
        rounds: { type: 'string' },
        duration: { type: 'string' },
        requests: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        workers: { type: 'string' },
        scenarios: { type: 'string' },
        json: { type: 'string' },
        'shared-processes': { type: 'boolean' },
        keep: { type: 'boolean', default: false },
        smoke: { type: 'boolean', default: false },
        soak: { type: 'string' },
        'metrics-cost': { type: 'boolean', default: false },
        'file-memory': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.help) return undefined;
  const d = parsed.soak !== undefined ? SOAK : parsed.smoke ? SMOKE : DEFAULTS;
  const workers = list('workers', parsed.workers ?? d.workers).map((w) => count('workers', w, 1));
  const connections = count('connections', parsed.connections, d.connections);
  const requests = parsed.requests === undefined ? d.requests : count('requests', parsed.requests, 0, connections);
  return {
    serverUrl: env.DATABASE_URL || DEFAULT_SERVER,
    issues: count('issues', parsed.issues, d.issues, 100),
    rounds: count('rounds', parsed.rounds, d.rounds),
    duration: count('duration', parsed.duration, d.duration),
    requests,
    warmup: count('warmup', parsed.warmup, d.warmup, 0),
    connections,
    workers,
    scenarios: parsed.scenarios === undefined ? [...SCENARIO_NAMES] : list('scenarios', parsed.scenarios, SCENARIO_NAMES),
    sharedProcesses: parsed['shared-processes'] ?? d.sharedProcesses,
    json: parsed.json,
    keep: parsed.keep,
    soak: parsed.soak === undefined ? undefined : count('soak', parsed.soak, 0),
    metricsCost: parsed['metrics-cost'],
    fileMemory: parsed['file-memory'] === undefined ? undefined : count('file-memory', parsed['file-memory'], 1024, 1),
  };
}
