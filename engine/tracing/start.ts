/**
 * OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set): imported by main.ts before any module of
 * the service, so the HTTP, Koa and pg instrumentations patch those libraries as they load. The
 * service is ESM: import-in-the-middle's loader hook, limited to the instrumented modules, catches
 * `import`s; require-in-the-middle catches `require`s (knex loads pg that way). Spans go to the
 * OTLP/HTTP receiver at `<endpoint>/v1/traces` (JSON), W3C `traceparent` is read from requests and
 * sent on outgoing ones (webhook deliveries), and the other OTEL_* variables work as the SDK
 * documents them.
 */
import { register } from 'node:module';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { getRPCMetadata } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { installTracingHooks, type RequestAttributes, type StatementTrace } from './hooks.js';

/** Probes and scrapes make no traces: they would drown the requests. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The attribute names (`bms.*`: the service's own; `enduser.id`: OpenTelemetry's). */
const REQUEST_ID_ATTRIBUTE = 'bms.request_id';
const USER_ID_ATTRIBUTE = 'enduser.id';

export async function startTracing(): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ? undefined : 'bms-api',
    traceExporter: new OTLPTraceExporter(),
    // traces only: metrics are Prometheus's (METRICS), logs are the JSON lines on stdout
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!) }),
      new KoaInstrumentation(),
      // statements outside a request (the job queue's and the webhook dispatcher's polling) make no
      // spans; parameters are never recorded, only the statement text with its placeholders
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  installTracingHooks({ annotateRequest, statementTrace, shutdown: () => sdk.shutdown() });
  // the loader has to know the instrumented modules before the service imports them
  await waitForAllMessagesAcknowledged();
}

/** On the request's server span (Koa's middleware spans are children of it and active meanwhile). */
function annotateRequest({ requestId, userId }: RequestAttributes): void {
  const span = getRPCMetadata(context.active())?.span ?? trace.getActiveSpan();
  span?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
  if (userId !== undefined) span?.setAttribute(USER_ID_ATTRIBUTE, userId);
}

/**
 * A streamed statement's client span, shaped as the pg instrumentation's (name, kind, `db.system`,
 * `db.statement`), under the span active when the list was asked for: its rows are read later,
 * as the response is written. Like the instrumentation's, none outside a request.
 */
function statementTrace(sql: string): StatementTrace | undefined {
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  return {
    begin() {
      const attributes = { 'db.system': 'postgresql', 'db.statement': sql, 'bms.streamed': true };
      const span = trace.getTracer('bms-api').startSpan('pg.query:SELECT', { kind: SpanKind.CLIENT, attributes }, parent);
      return (error) => {
        if (error !== undefined) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        }
        span.end();
      };
    },
  };
}
