/**
 * `GET /metrics` on METRICS_PORT, bound to HOST: a listener of its own, so the public port never
 * serves it. A single process answers from its own registry; a cluster's primary asks each worker
 * for theirs and answers the sum (prom-client's AggregatorRegistry over node:cluster messages).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { StartupError } from '../startup-error.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** The metrics text and its content type. */
type Scrape = () => Promise<{ text: string; contentType: string }>;

const fromRegistry =
  (registry: Registry): Scrape =>
  async () => ({ text: await registry.metrics(), contentType: registry.contentType });

/** For a cluster's primary: the workers' metrics summed (each worker registers its registry with `AggregatorRegistry.setRegistries`). */
export function fromWorkers(): Scrape {
  const aggregator = new AggregatorRegistry();
  return async () => ({ text: await aggregator.clusterMetrics(), contentType: aggregator.contentType });
}

export async function serveMetrics(host: string, port: number, source: Registry | Scrape): Promise<MetricsServer> {
  const scrape = typeof source === 'function' ? source : fromRegistry(source);
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: metrics are at GET /metrics.\n');
      return;
    }
    scrape().then(
      ({ text, contentType }) => res.writeHead(200, { 'Content-Type': contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: Error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`Metrics could not be collected: ${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new StartupError(`Cannot serve metrics on ${host}:${port} (METRICS_PORT): ${err.code === 'EADDRINUSE' ? 'the address is already in use' : err.message}.`)),
    );
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** In a cluster's worker: answer the primary's requests for metrics from `registry`. */
export function reportToPrimary(registry: Registry): void {
  // constructing one is what makes a worker listen for the primary's requests
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}
