/** The bench's command line: `npm run bench -- [options]`. */
import { parseArgs } from 'node:util';
import { PEER_KINDS, type PeerKind } from './peers.js';
import { SCENARIO_NAMES } from './scenarios.js';
import { EXPORTABLE_TABLES } from './seed.js';

/** Another running service to drive with the same scenarios (bench/peers.ts). */
export interface PeerOptions {
  url: string;
  kind: PeerKind;
  token: string;
  /** For the non-superuser's scenario; without it the peer skips that one. */
  viewerToken: string | undefined;
  /** Its main process, when the bench may read its memory and CPU time in /proc. */
  pid: number | undefined;
}

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
  /** The ceiling's writes captured as the service's are (audit entries), so the two differ only in their processes. */
  ceilingCaptures: boolean;
  /** Seconds of the soak (bench/soak.ts) run instead of the table. */
  soak: number | undefined;
  /** The cost of METRICS=true (bench/metrics-cost.ts) instead of the table. */
  metricsCost: boolean;
  /** The framework's own cost per request (bench/framework-floor.ts) instead of the table. */
  frameworkFloor: boolean;
  /** Instead of the table: one file of this many MiB uploaded and downloaded, the service's resident memory watched. */
  fileMemory: number | undefined;
  /** The table's scenarios against this service too. */
  peer: PeerOptions | undefined;
  /** Instead of the table: the seeded rows of these tables written to this file as SQL (bench/export-sql.ts). */
  exportSql: { file: string; tables: string[] } | undefined;
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
  --ceiling-captures   the ceiling's writes go through the change capture as the service's do (an
                       audit entry each); by default they do not, and a service write is held
                       against one without its audit trail
  --smoke              tiny and quick: --issues 1000 --rounds 1 --requests 100 --warmup 0 --shared-processes
  --soak S             instead of the table: S seconds of mixed reads and writes on the service alone
                       (--connections default 64, --workers default 1, --issues default 20000), its
                       memory sampled every 10 s; fails on any failed request, lost write or rising memory
  --metrics-cost       instead of the table: issue details on two services side by side, METRICS off
                       and on (the first of --workers), req/s and CPU per request of each
  --framework-floor    instead of the table: issue details on node:http, on Koa and on Koa with the
                       service's front middleware, each answering a fixed text without the database,
                       and on the ceiling and the service (the first of --workers): the framework's
                       own CPU per request, and the least CPU per detail a service on it can spend
  --file-memory MIB    instead of the table: one file of MIB MiB (e.g. 1024) uploaded to and downloaded
                       from the service (1 worker), its resident memory's rise over each reported;
                       exit code 1 when a rise reaches 64 MiB
  --peer-url URL       also drive another running service holding the same rows (see --export-sql)
                       with every scenario its kind can express, and print the service's req/s
                       over the peer's beside the ceiling's; the bench neither starts nor stops it
  --peer-token T       the peer's token for a superuser (required with --peer-url)
  --peer-kind KIND     the peer's URL shape and token header: generic (this service's paths,
                       Authorization: Token T; default), directus (/items/issue_issue, Bearer T)
                       or drf (the spec's paths with a trailing slash, Token T)
  --peer-viewer-token T  the peer's token for the non-superuser (else its scenario is skipped there)
  --peer-pid PID       the peer's main process, to report its peak RSS and CPU time (with its
                       workers' when it has any); without it those columns stay empty for the peer
  --export-sql FILE    instead of the table: seed, write the seeded rows to FILE as SQL INSERTs
                       (this service's table and column names) for a peer to load, and stop
  --export-tables LIST the tables --export-sql writes, comma-separated (default all of
                       ${EXPORTABLE_TABLES.join(', ')})
  --help               this text

Exits 1 when any request failed, the ceiling's answers differ from the service's, a peer does not
answer its first request, or the soak failed.`;

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
        'ceiling-captures': { type: 'boolean', default: false },
        smoke: { type: 'boolean', default: false },
        soak: { type: 'string' },
        'metrics-cost': { type: 'boolean', default: false },
        'framework-floor': { type: 'boolean', default: false },
        'file-memory': { type: 'string' },
        'peer-url': { type: 'string' },
        'peer-token': { type: 'string' },
        'peer-kind': { type: 'string' },
        'peer-viewer-token': { type: 'string' },
        'peer-pid': { type: 'string' },
        'export-sql': { type: 'string' },
        'export-tables': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.help) return undefined;
  const modes = (['soak', 'metrics-cost', 'framework-floor', 'file-memory', 'export-sql'] as const).filter((m) => parsed[m] !== undefined && parsed[m] !== false);
  if (modes.length > 1) throw new UsageError(`${modes.map((m) => `--${m}`).join(' and ')} each replace the table: give one of them.`);
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
    ceilingCaptures: parsed['ceiling-captures'],
    soak: parsed.soak === undefined ? undefined : count('soak', parsed.soak, 0),
    metricsCost: parsed['metrics-cost'],
    frameworkFloor: parsed['framework-floor'],
    fileMemory: parsed['file-memory'] === undefined ? undefined : count('file-memory', parsed['file-memory'], 1024, 1),
    peer: readPeer(parsed, modes[0]),
    exportSql: readExport(parsed['export-sql'], parsed['export-tables']),
  };
}

type PeerFlags = Partial<Record<'peer-url' | 'peer-token' | 'peer-kind' | 'peer-viewer-token' | 'peer-pid', string>>;

function readPeer(parsed: PeerFlags, mode: string | undefined): PeerOptions | undefined {
  const url = parsed['peer-url'];
  if (url === undefined) {
    const stray = (['peer-token', 'peer-kind', 'peer-viewer-token', 'peer-pid'] as const).find((name) => parsed[name] !== undefined);
    if (stray) throw new UsageError(`--${stray} describes a peer: give --peer-url too.`);
    return undefined;
  }
  if (mode) throw new UsageError(`--peer-url compares the table's scenarios; --${mode} replaces the table.`);
  let protocol;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--peer-url expects an http:// or https:// URL, not "${url}".`);
  const kind = parsed['peer-kind'] ?? 'generic';
  if (!(PEER_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--peer-kind: unknown "${kind}"; expected one of ${PEER_KINDS.join(', ')}.`);
  const token = parsed['peer-token'];
  if (!token) throw new UsageError('--peer-url needs --peer-token: a superuser\'s token at the peer.');
  const viewerToken = parsed['peer-viewer-token'];
  if (viewerToken === '') throw new UsageError('--peer-viewer-token is empty.');
  const pid = parsed['peer-pid'] === undefined ? undefined : count('peer-pid', parsed['peer-pid'], 0);
  return { url, kind: kind as PeerKind, token, viewerToken, pid };
}

function readExport(file: string | undefined, tables: string | undefined): BenchOptions['exportSql'] {
  if (file === undefined) {
    if (tables !== undefined) throw new UsageError('--export-tables chooses what --export-sql writes: give --export-sql FILE too.');
    return undefined;
  }
  if (!file) throw new UsageError('--export-sql expects a file name.');
  const chosen = tables === undefined ? EXPORTABLE_TABLES : list('export-tables', tables, EXPORTABLE_TABLES);
  // in the seed's order, so a row's references are loaded before it
  return { file, tables: EXPORTABLE_TABLES.filter((t) => chosen.includes(t)) };
}
