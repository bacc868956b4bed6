/**
 * What the bench drives: the service (`node dist/engine/main.js`) or the ceiling, each a child
 * process on a free port with WEB_CONCURRENCY workers, ready once every worker has logged that it
 * listens. The log is read and dropped, as a log collector would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWN_DIALECT, type Dialect } from './peers.js';
import { childPids, cpuMs, peakRss, resetPeakRss, whileRunning } from './proc.js';
import type { BenchRequest, Scenario } from './scenarios.js';
import type { BenchData } from './seed.js';

export type TargetKind = 'service' | 'ceiling' | 'floor' | 'peer';

export interface Target {
  kind: TargetKind;
  url: string;
  /** How it takes the bench's requests. */
  dialect: Dialect;
  /** Its own tokens (a peer's); the service and the ceiling take the seeded ones. */
  tokens?: { admin: string; viewer: string | undefined };
  /**
   * For a target whose writes are not undone (a peer): where each connection's turns of a writing
   * scenario stopped, so the next run goes on from there: PATCH state moves issues it has not
   * moved yet, as the service's runs do on their restored rows, instead of repeating moves made.
   */
  carried?: Map<string, number[]>;
  /** The processes that serve requests: the process itself, or its workers; none when unknown (a peer without --peer-pid). */
  servingPids(): number[];
  stop(): Promise<void>;
}

/** The Authorization header of a scenario's user at `target`. */
export function authorization(target: Target, as: Scenario['as'], data: BenchData): string {
  const tokens = target.tokens ?? { admin: data.adminToken, viewer: data.viewerToken };
  const token = as === 'admin' ? tokens.admin : tokens.viewer;
  if (token === undefined) throw new Error(`the ${target.kind} has no ${as} token`);
  return target.dialect.authorization(token);
}

/** One request to `target` as it takes it, with the admin's token. */
export function send(target: Target, data: BenchData, req: BenchRequest): Promise<Response> {
  const { method, path, body, headers } = target.dialect.request(req);
  return fetch(target.url + path, {
    method,
    body: body as BodyInit | undefined,
    headers: { 'content-type': 'application/json', ...headers, authorization: authorization(target, 'admin', data) },
  });
}

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRIPTS: Record<Exclude<TargetKind, 'peer'>, string> = {
  service: path.resolve(here, '../engine/main.js'),
  ceiling: path.resolve(here, 'ceiling.js'),
  floor: path.resolve(here, 'floor.js'),
};
const READY_WITHIN_MS = 60_000;
const STOP_WITHIN_MS = 15_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function keepLog(child: ChildProcess): void {
  const file = process.env.BENCH_SERVICE_LOG;
  if (!file) {
    child.stdout!.resume();
    child.stderr!.resume();
    return;
  }
  const log = fs.createWriteStream(file, { flags: 'a' });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
}

/** Resolves once `workers` distinct pids have logged `listening`; rejects with what it printed if it exits first or takes too long. */
function ready(child: ChildProcess, kind: keyof typeof SCRIPTS, workers: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const listening = new Set<number>();
    const fail = (why: string) => reject(new Error(`the ${kind} ${why}:\n${output.slice(-4000)}`));
    const timer = setTimeout(() => fail(`did not listen within ${READY_WITHIN_MS / 1000} s`), READY_WITHIN_MS);
    const onExit = (code: number | null) => fail(`exited with ${code}`);
    child.once('exit', onExit);
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      for (const match of output.matchAll(/"pid":(\d+),[^\n]*"msg":"listening"/g)) listening.add(Number(match[1]));
      if (listening.size < workers) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.off('data', watch);
      // from now on the log is drained and dropped (stderr too: errors show as error counts),
      // or kept in BENCH_SERVICE_LOG to find out why a request failed
      keepLog(child);
      resolve();
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
}

/** `settings`: more environment variables of the process (METRICS=true). */
export async function startTarget(kind: keyof typeof SCRIPTS, databaseUrl: string, workers: number, settings: Record<string, string> = {}): Promise<Target> {
  const port = await freePort();
  // the bench's database is new each run: a key of its own fits it unless one is given
  const env = { FIELD_ENCRYPTION_KEY: randomBytes(32).toString('hex'), ...process.env, DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), WEB_CONCURRENCY: String(workers), ...settings };
  const child = spawn(process.execPath, [SCRIPTS[kind]], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid!;
  try {
    await ready(child, kind, workers);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    dialect: OWN_DIALECT,
    servingPids: () => (workers > 1 ? childPids(pid) : [pid]),
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WITHIN_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Targets {
  service: Target;
  ceiling: Target;
}

/** Starts the service and the ceiling side by side, runs `work` with them, stops both; `ceilingSettings`: more of the ceiling's environment. */
export async function withTargets<T>(databaseUrl: string, workers: number, work: (targets: Targets) => Promise<T>, ceilingSettings: Record<string, string> = {}): Promise<T> {
  const started = await Promise.allSettled([startTarget('service', databaseUrl, workers), startTarget('ceiling', databaseUrl, workers, ceilingSettings)]);
  const [service, ceiling] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  try {
    if (!service || !ceiling) throw started.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))[0];
    return await work({ service, ceiling });
  } finally {
    await Promise.all([service?.stop(), ceiling?.stop()]);
  }
}

/**
 * What a target's serving processes used over a stretch of work: peak resident memory and CPU time,
 * summed over those alive at both ends (a short-lived child of a peer's launcher may come and go);
 * undefined when none is known.
 */
export async function withUsage<T>(target: Target, work: () => Promise<T>): Promise<{ result: T; peakRss: number | undefined; cpuMs: number | undefined }> {
  const before = target.servingPids().flatMap((pid) => {
    const cpu = whileRunning(pid, () => (resetPeakRss(pid), cpuMs(pid)));
    return cpu === undefined ? [] : [{ pid, cpu }];
  });
  const result = await work();
  const after = before.flatMap(({ pid, cpu }) => {
    const used = whileRunning(pid, () => ({ peak: peakRss(pid), cpu: cpuMs(pid) - cpu }));
    return used ? [used] : [];
  });
  if (!after.length) return { result, peakRss: undefined, cpuMs: undefined };
  return { result, peakRss: after.reduce((sum, u) => sum + u.peak, 0), cpuMs: after.reduce((sum, u) => sum + u.cpu, 0) };
}
