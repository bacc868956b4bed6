/**
 * OpenTelemetry tracing: `npm start` as a process of its own with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP/HTTP receiver on loopback. One request carrying a W3C `traceparent` yields a
 * server span in that trace, with the request id and the user id as attributes and the request's
 * pg statements as its descendants; a webhook delivery carries a `traceparent` of its own; no
 * attribute holds the token. Without the variable no @opentelemetry module is loaded at all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { created, unique } from './support/fixtures.js';
import { packagesOf, preloadOption } from './support/loaded-modules.js';
import { OtlpReceiver, SPAN_KIND, type ReceivedSpan } from './support/otlp-receiver.js';
import { startServiceProcess } from './support/processes.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** A service process whose loaded CommonJS modules are written to a file when it exits. */
async function startObserved(db: TestDatabase, env: Record<string, string>) {
  const loadedFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bms-loaded-')), 'modules.txt');
  const service = await startServiceProcess(db, { ...env, NODE_OPTIONS: preloadOption, LOADED_MODULES_FILE: loadedFile });
  /** Stops the service; resolves with the @opentelemetry packages it had loaded. */
  const stop = async (): Promise<string[]> => {
    expect(await service.stop()).to.equal(0);
    const files = fs.readFileSync(loadedFile, 'utf8').split('\n');
    fs.rmSync(path.dirname(loadedFile), { recursive: true, force: true });
    return [...packagesOf(files)].filter((name) => name.startsWith('@opentelemetry/'));
  };
  return { service, stop };
}

/** `span`'s ancestors in `spans`, nearest first. */
function ancestors(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let s = span; s.parentSpanId; ) {
    const parent = spans.find((p) => p.spanId === s.parentSpanId && p.traceId === s.traceId);
    if (!parent) break;
    chain.push(parent);
    s = parent;
  }
  return chain;
}

describeWithServer('tracing (OTEL_EXPORTER_OTLP_ENDPOINT)', 'the pg instrumentation traces the pg driver, which PGlite does not use', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let receiver: OtlpReceiver;
  let hooks: WebhookReceiver;
  let traced: Awaited<ReturnType<typeof startObserved>>;
  let client: Client;

  before(async () => {
    db = await createTestDatabase();
    receiver = new OtlpReceiver();
    hooks = new WebhookReceiver();
    const endpoint = await receiver.start();
    traced = await startObserved(db, {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      // the batch goes out a moment after the request instead of after the SDK's default 5 s
      OTEL_BSP_SCHEDULE_DELAY: '100',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '50',
    });
    client = new Client(traced.service.url, traced.service.token!);
  });
  after(async () => {
    // stopped by the last test; when that one did not run (--grep), stopped here
    await traced?.service.stop();
    await receiver?.stop();
    await hooks?.stop();
    await db?.drop();
  });

  it('a detail request with a traceparent: a server span in that trace with the request id and the user, and its pg statements as descendants', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const requestId = unique('trace-request');
    const me = await client.get('/api/auth/me');
    expect(me.status, me.text).to.equal(200);
    const tracker = await created(client, '/api/issue/tracker', { title: unique('traced') });
    const res = await client.get(`/api/issue/tracker/${tracker.id}`, { headers: { traceparent: `00-${traceId}-${parentId}-01`, 'X-Request-Id': requestId } });
    expect(res.status, res.text).to.equal(200);

    const server = await until('the server span', () => receiver.spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server));
    expect(server.parentSpanId, 'the caller\'s span is the parent').to.equal(parentId);
    expect(server.scope).to.equal('@opentelemetry/instrumentation-http');
    expect(server.attributes['bms.request_id']).to.equal(requestId);
    expect(server.attributes['enduser.id']).to.equal(me.body.id);
    const pg = await until('pg spans of the request', () => {
      const found = receiver.spans.filter((s) => s.traceId === traceId && s.scope === '@opentelemetry/instrumentation-pg');
      return found.some((s) => /select/i.test(String(s.attributes['db.statement'] ?? s.attributes['db.query.text']))) ? found : undefined;
    });
    for (const span of pg) {
      expect(span.kind).to.equal(SPAN_KIND.client);
      expect(ancestors(span, receiver.spans).map((a) => a.spanId), 'the server span is an ancestor').to.include(server.spanId);
    }
    // Koa's middleware spans sit between them
    expect(receiver.spans.filter((s) => s.traceId === traceId && s.scope === '@opentelemetry/instrumentation-koa')).not.to.be.empty;
  });

  it('a list request: its streamed main read is a client span of its own under the server span, as the pg instrumentation shapes one', async () => {
    const traceId = randomBytes(16).toString('hex');
    const title = unique('streamed');
    await created(client, '/api/issue/tracker', { title });
    const res = await client.get(`/api/issue/tracker?search=${title}`, { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.map((t: { title: string }) => t.title)).to.deep.equal([title]);
    const server = await until('the server span', () => receiver.spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server));
    const streamed = await until('the list statement\'s span', () => receiver.spans.find((s) => s.traceId === traceId && s.attributes['bms.streamed'] === true));
    expect(streamed).to.include({ name: 'pg.query:SELECT', kind: SPAN_KIND.client });
    expect(streamed.attributes['db.system']).to.equal('postgresql');
    expect(String(streamed.attributes['db.statement'])).to.match(/from "issue_tracker"/);
    // the text with its placeholders, never the values
    expect(String(streamed.attributes['db.statement'])).not.to.include(title);
    expect(ancestors(streamed, receiver.spans).map((a) => a.spanId)).to.include(server.spanId);
  });

  it('a webhook delivery carries a traceparent of its client span (W3C trace context out)', async () => {
    const hookUrl = await hooks.start();
    const sub = await client.post('/api/webhook/subscription', { url: hookUrl, events: ['issue.tracker.created'], secret: 'a-secret-of-sixteen-or-more' });
    expect(sub.status, sub.text).to.equal(201);
    await created(client, '/api/issue/tracker', { title: unique('traced') });
    const delivery = await until('the delivery', () => hooks.received[0]);
    const [, traceId, spanId] = TRACEPARENT.exec(String(delivery.headers.traceparent))!;
    const span = await until('the delivery\'s client span', () => receiver.spans.find((s) => s.traceId === traceId && s.spanId === spanId));
    expect(span.kind).to.equal(SPAN_KIND.client);
  });

  it('no span holds the token, a cookie or an Authorization header; only traces are sent', async () => {
    await until('spans', () => (receiver.spans.length > 0 ? true : undefined));
    const token = traced.service.token!;
    for (const span of receiver.spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        expect(String(value), `${span.name} ${key}`).not.to.include(token);
        expect(key).not.to.match(/authorization|cookie/i);
      }
    }
    expect(receiver.otherPaths).to.deep.equal([]);
  });

  it('probes make no spans; the process loaded the SDK; on SIGTERM the spans still buffered are sent', async () => {
    expect((await fetch(`${traced.service.url}/healthz`)).status).to.equal(200);
    const traceId = randomBytes(16).toString('hex');
    expect((await client.get('/api/issue/tracker?limit=1', { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } })).status).to.equal(200);
    // stopped at once: the batch delay has not passed, so the span goes out with the shutdown
    const loaded = await traced.stop();
    expect(receiver.spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server), 'the last request\'s span').not.to.equal(undefined);
    expect(receiver.spans.filter((s) => /healthz/.test(String(s.attributes['http.target'] ?? s.attributes['url.path'])))).to.deep.equal([]);
    expect(loaded).to.include.members(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-pg', '@opentelemetry/instrumentation-koa']);
  });
});

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', function () {
  this.timeout(120_000);
  it('loads no @opentelemetry module at all', async () => {
    const db = await createTestDatabase();
    try {
      const observed = await startObserved(db, { OTEL_EXPORTER_OTLP_ENDPOINT: '' });
      const res = await new Client(observed.service.url, observed.service.token!).get('/api/issue/tracker?limit=1');
      expect(res.status).to.equal(200);
      expect(await observed.stop()).to.deep.equal([]);
    } finally {
      await db.drop();
    }
  });
});
