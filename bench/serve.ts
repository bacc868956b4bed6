/**
 * How the bench's own servers (the ceiling, the framework floors) run, as the service does: on HOST
 * and PORT (0: a free port, which the `listening` line says), one process or WEB_CONCURRENCY workers
 * under a primary, until SIGTERM or SIGINT closes the server, then `close`, then exit.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { superviseWorkers } from '../engine/cluster.js';
import { createLogger, type Logger } from '../engine/log.js';

export interface BenchServer {
  listener: http.RequestListener;
  /** Said in the `listening` line beside the URL. */
  bindings?: Record<string, unknown>;
  /** After the server has closed, before the process exits (a pool ended). */
  close?: () => Promise<void>;
}

/** Runs the server `start` makes in each serving process; `defaultPort` without PORT. */
export function runBenchServer(defaultPort: number, start: (log: Logger) => BenchServer): void {
  const log = createLogger('info');
  const workers = Number(process.env.WEB_CONCURRENCY ?? 1);
  if (workers > 1 && cluster.isPrimary) return superviseWorkers(workers, log);
  const { listener, bindings, close } = start(log);
  const server = http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  const [host, port] = [process.env.HOST ?? '127.0.0.1', Number(process.env.PORT ?? defaultPort)];
  server.listen(port, host, () => log.info({ url: `http://${host}:${(server.address() as AddressInfo).port}`, ...bindings }, 'listening'));
  const stop = () => {
    server.close(() => void (close ?? (async () => undefined))().then(() => process.exit(0)));
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
