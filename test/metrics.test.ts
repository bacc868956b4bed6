/**
 * `/metrics` (METRICS=true): an app of its own on the suite's database with its metrics listener on
 * another port, and `npm start` with two workers whose counts the primary sums. Labels are route
 * patterns, never the ids a path holds; the public port never answers the metrics.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../engine/http/app.js';
import { Metrics } from '../engine/metrics/metrics.js';
import { serveMetrics, type MetricsServer } from '../engine/metrics/server.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { created, unique } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { startServiceProcess, type ServiceProcess } from './support/processes.js';
import { until } from './support/wait.js';

/** The value of the sample `name{labels}` in `text`, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The label values of `label` in `text`'s samples of `metric`. */
const labelValues = (text: string, metric: string, label: string): string[] =>
  [...text.matchAll(new RegExp(`^${metric}\\{[^}]*${label}="([^"]*)"`, 'gm'))].map((m) => m[1]!);

describe('metrics', function () {
  this.timeout(60_000);
  let server: http.Server;
  let metrics: Metrics;
  let metricsServer: MetricsServer;
  let client: Client;
  before(async () => {
    const { service, admin } = suite();
    metrics = new Metrics({ db: service.db });
    const app = createApp({ db: service.db, registry: await loadRegistry(), log: pino({ level: 'silent' }), metrics });
    server = http.createServer(app.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, admin.token);
    metricsServer = await serveMetrics('127.0.0.1', 0, metrics.registry);
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await metricsServer.close();
    metrics.close();
  });

  const scrape = async (): Promise<string> => {
    const res = await fetch(metricsUrl());
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const metricsUrl = () => metricsServer.url;

  it('counts requests by route pattern, method and status, with a latency histogram, bytes out and the statements', async () => {
    const tracker = await created(client, '/api/issue/tracker', { title: unique('tracker') });
    for (const id of [tracker.id, tracker.id, 987654321]) await client.get(`/api/issue/tracker/${id}`);
    await client.get('/api/issue/tracker');
    await client.get(`/no/such/${tracker.id}`);
    const text = await scrape();
    const detail = 'route="/api/issue/tracker/:id",method="GET"';
    expect(sample(text, `http_requests_total{${detail},status="200"}`)).to.equal(2);
    expect(sample(text, `http_requests_total{${detail},status="404"}`)).to.equal(1);
    expect(sample(text, 'http_requests_total{route="/api/issue/tracker",method="POST",status="201"}')).to.equal(1);
    expect(sample(text, 'http_requests_total{route="unmatched",method="GET",status="404"}')).to.equal(1);
    // the histogram: every request in +Inf, buckets cumulative, the sum positive
    expect(sample(text, `http_request_duration_seconds_bucket{le="+Inf",${detail}}`)).to.equal(3);
    expect(sample(text, `http_request_duration_seconds_count{${detail}}`)).to.equal(3);
    expect(sample(text, `http_request_duration_seconds_sum{${detail}}`)).to.be.greaterThan(0);
    const buckets = [...text.matchAll(new RegExp(`^http_request_duration_seconds_bucket\\{le="([^"]+)",${detail.replace(/[/:]/g, '\\$&')}\\} (\\d+)$`, 'gm'))].map((m) => Number(m[2]));
    expect(buckets.length).to.be.greaterThan(10);
    expect(buckets).to.deep.equal([...buckets].sort((a, b) => a - b));
    expect(sample(text, 'http_response_bytes_total{route="/api/issue/tracker/:id"}')).to.be.greaterThan(300);
    expect(sample(text, 'http_requests_in_flight')).to.equal(0);
    // no id ever becomes a label
    const routes = labelValues(text, 'http_requests_total', 'route');
    expect(routes.filter((r) => /\d/.test(r))).to.deep.equal([]);
    // reads are selects; the create is one statement, an insert or a `with` of several
    expect(sample(text, 'db_statement_duration_seconds_count{kind="select"}')).to.be.greaterThan(0);
    expect((sample(text, 'db_statement_duration_seconds_count{kind="insert"}') ?? 0) + (sample(text, 'db_statement_duration_seconds_count{kind="with"}') ?? 0)).to.be.greaterThan(0);
    expect(sample(text, 'db_pool_connections{state="max"}')).to.be.greaterThan(0);
    expect(sample(text, 'webhook_outbox_pending')).to.be.a('number');
    expect(text).to.match(/^process_cpu_user_seconds_total \d/m);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it("times a streamed list's statement too: Knex's query and query-response events share its uid", async () => {
    const { db } = suite().service;
    const title = unique('streamed');
    await created(client, '/api/issue/tracker', { title });
    const seen: { event: string; uid: unknown; sql?: string }[] = [];
    const listeners = ['query', 'query-response', 'query-error'].map((event) => {
      const listener = (...args: unknown[]) => {
        const q = (event === 'query' ? args[0] : args[1]) as { __knexQueryUid?: unknown; sql?: string };
        seen.push({ event, uid: q.__knexQueryUid, sql: q.sql });
      };
      db.on(event, listener);
      return () => db.removeListener(event, listener);
    });
    try {
      const res = await client.get(`/api/issue/tracker?search=${title}`);
      expect(res.body.map((t: { title: string }) => t.title)).to.deep.equal([title]);
    } finally {
      listeners.forEach((stop) => stop());
    }
    const list = seen.find((e) => e.event === 'query' && /from "issue_tracker"/.test(e.sql ?? '') && /ilike/.test(e.sql ?? ''));
    expect(list, JSON.stringify(seen)).to.not.equal(undefined);
    expect(list!.uid).to.be.a('string');
    expect(seen.filter((e) => e.event === 'query-response' && e.uid === list!.uid)).to.have.length(1);
  });

  it('is not served on the public port, with or without credentials; its own port serves GET /metrics only', async () => {
    for (const token of [suite().admin.token, null]) {
      const res = await client.get('/metrics', { token });
      expect(res.status).to.be.oneOf([401, 404]);
      expect(res.text).not.to.include('http_requests_total');
    }
    expect((await fetch(metricsUrl().replace('/metrics', '/other'))).status).to.equal(404);
    expect((await fetch(metricsUrl(), { method: 'POST' })).status).to.equal(404);
  });
});

describeWithServer('metrics of WEB_CONCURRENCY=2', 'workers share a database server', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let service: ServiceProcess;
  before(async () => {
    db = await createTestDatabase();
    service = await startServiceProcess(db, { WEB_CONCURRENCY: '2', METRICS: 'true', METRICS_PORT: '0' });
  });
  after(async () => {
    await service?.stop();
    await db?.drop();
  });

  it("the primary answers the sum of both workers' counts; the public port does not answer them", async () => {
    const metricsUrl = /"metrics":"(http:[^"]+)","msg":"serving the workers' metrics"/.exec(service.output())![1]!;
    /** The pids of the processes that logged a line matching `pattern`. */
    const pidsLogging = (pattern: string) =>
      new Set(service.output().split('\n').filter((line) => line.startsWith('{') && line.includes(pattern)).map((line) => (JSON.parse(line) as { pid: number }).pid));
    // the service answers once one worker listens: the other must too before requests can reach both
    await until('two listening workers', () => (pidsLogging('"msg":"listening"').size === 2 ? true : undefined));
    const requests = 24;
    for (let i = 0; i < requests; i++) {
      // a connection each, so the primary hands them to both workers in turn
      const res = await fetch(`${service.url}/api/issue/tracker?limit=1`, { headers: { Authorization: `Token ${service.token}`, Connection: 'close' } });
      expect(res.status).to.equal(200);
      await res.text();
    }
    await until('both workers logged requests', () => (pidsLogging('"path":"/api/issue/tracker"').size === 2 ? true : undefined));
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'http_requests_total{route="/api/issue/tracker",method="GET",status="200"}')).to.equal(requests);
    expect(sample(text, 'http_request_duration_seconds_count{route="/api/issue/tracker",method="GET"}')).to.equal(requests);
    // each worker's pool, summed
    expect(sample(text, 'db_pool_connections{state="max"}')).to.equal(20);
    const publicAnswer = await fetch(`${service.url}/metrics`, { headers: { Authorization: `Token ${service.token}` } });
    expect(publicAnswer.status).to.equal(404);
  });
});
