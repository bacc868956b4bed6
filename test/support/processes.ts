/**
 * The service and the manage commands as separate processes (`node dist/…`), on a test database
 * of their own, with settings passed in the environment as a user would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, isRunning } from '../../bench/proc.js';
import { TEST_FIELD_KEY, type TestDatabase } from './database.js';

/** The compiled tree: this file runs from `<dist>/test/support/`. */
export const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a process on `db`; `extra` comes last, so it may replace DATABASE_URL too. Its
 * field key is the tests' own, whatever the environment says, so the services the tests run in
 * their own process read what it encrypts.
 */
export function processEnv(db: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FIELD_ENCRYPTION_KEY: TEST_FIELD_KEY, BMS_DATA_DIR: db.dataDir, LOG_LEVEL: 'info' };
  if (db.databaseUrl) env.DATABASE_URL = db.databaseUrl;
  else delete env.DATABASE_URL;
  return { ...env, ...extra };
}

/** Runs `script` (under `dist`, or absolute) to its end, or until its stdout matches `untilStdout` (then stops it with SIGTERM). */
export function run(script: string, args: string[], db: TestDatabase, extraEnv: Record<string, string> = {}, untilStdout?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve(dist, script), ...args], { env: processEnv(db, extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (untilStdout?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const manage = (db: TestDatabase, ...args: string[]) => run('engine/cli/manage.js', args, db);

export interface ServiceProcess {
  url: string;
  /** The first start's API token, when this start was the first. */
  token: string | undefined;
  child: ChildProcess;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /**
   * SIGTERM, then its exit code. One still running after STOP_WAIT_MS is killed with its children
   * and the promise rejects with what it printed: a service that does not stop fails its test
   * instead of holding the whole run open until CI gives up on it.
   */
  stop(): Promise<number | null>;
}

/** Kills `pid` and its child processes (a cluster's workers) at once, those still running. */
export function killWithChildren(pid: number): void {
  for (const each of [...childPids(pid), pid]) if (isRunning(each)) process.kill(each, 'SIGKILL');
}

/** Longer than the service's own worst stop (10 s of requests in flight, then 10 s of job runs), within mocha's 30 s for a hook. */
const STOP_WAIT_MS = 25_000;

/** `npm start` (of the compiled tree `tree`) as a process of its own on `db` and a free port, until stopped; resolves once it listens. */
export async function startServiceProcess(db: TestDatabase, extraEnv: Record<string, string> = {}, tree = dist): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [path.join(tree, 'engine/main.js')], { env: processEnv(db, { PORT: '0', ...extraEnv }), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const listening = /"url":"(http:[^"]+)","[^}]*"msg":"listening"/.exec(out);
      if (listening) resolve(listening[1]!);
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), STOP_WAIT_MS)))]);
    clearTimeout(timer);
    if (code !== 'running') return code;
    killWithChildren(child.pid!);
    await exited;
    throw new Error(`the service was still running ${STOP_WAIT_MS / 1000} s after SIGTERM (now killed); it printed:\n${out.slice(-4_000)}`);
  };
  return { url, token: /API token: ([0-9a-f]{64})/.exec(out)?.[1], child, exited, output: () => out, stop };
}
