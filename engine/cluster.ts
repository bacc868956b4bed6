/**
 * The primary of WEB_CONCURRENCY > 1: forks that many workers (node:cluster), which share the
 * listening socket, and serves nothing itself. A worker that dies unexpectedly is logged and
 * replaced. One that dies before it ever listened failed to start (it printed why), and would fail
 * again: the others are stopped and the primary exits 1 instead of forking for ever. SIGTERM or
 * SIGINT stops every worker (each closes as a single process does), then the primary exits 0.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.js';

/**
 * The workers still running. node:cluster keeps an exited worker in `cluster.workers` until its IPC
 * channel has closed too, which may come after its 'exit': counting the entries could wait for ever.
 */
const running = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

export function superviseWorkers(count: number, log: Logger): void {
  const listened = new WeakSet<Worker>();
  let exitCode: number | undefined;

  const stop = (code: number) => {
    if (exitCode !== undefined) return;
    exitCode = code;
    const workers = running();
    if (workers.length === 0) process.exit(code);
    for (const w of workers) w.process.kill('SIGTERM');
  };

  cluster.on('listening', (worker) => listened.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    if (exitCode !== undefined) {
      if (running().length === 0) process.exit(exitCode);
      return;
    }
    if (!listened.has(worker)) return stop(1);
    log.error({ worker: worker.process.pid, code, signal }, 'worker died; starting another');
    cluster.fork();
  });
  process.once('SIGTERM', () => stop(0));
  process.once('SIGINT', () => stop(0));
  for (let i = 0; i < count; i++) cluster.fork();
  log.info({ workers: count }, 'started workers');
}
