/** An OTLP/HTTP trace receiver on loopback: keeps the spans POSTed to /v1/traces as JSON (what exporter-trace-otlp-http sends). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  /** The instrumentation that made it (`@opentelemetry/instrumentation-pg`, …). */
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

export const SPAN_KIND = { server: 2, client: 3 } as const;

const valueOf = (v: AnyValue) => v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.boolValue ?? v.doubleValue;

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Paths other than /v1/traces that were posted to (metrics and logs must not be). */
  readonly otherPaths: string[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json') {
        this.otherPaths.push(`${req.url} ${req.headers['content-type']}`);
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes = Object.fromEntries((s.attributes ?? []).map((a: { key: string; value: AnyValue }) => [a.key, valueOf(a.value)]));
            this.spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, scope: ss.scope?.name, attributes });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });

  /** Resolves with the endpoint (OTEL_EXPORTER_OTLP_ENDPOINT: the exporter adds /v1/traces). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
