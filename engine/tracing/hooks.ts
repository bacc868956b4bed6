/**
 * What the service tells the tracer, without importing it: OpenTelemetry is loaded only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (tracing/start.ts installs these hooks then); otherwise each
 * call here does nothing and no @opentelemetry module is ever loaded.
 */

/** Span attributes of one request: its id and, once authenticated, its user's id; never a secret. */
export interface RequestAttributes {
  requestId: string;
  userId: number | undefined;
}

interface TracingHooks {
  annotateRequest(attributes: RequestAttributes): void;
  /** Exports the spans still buffered. */
  shutdown(): Promise<void>;
}

let hooks: TracingHooks | undefined;

export function installTracingHooks(installed: TracingHooks): void {
  hooks = installed;
}

/** Adds the request's attributes to the server span of the request being answered. */
export function annotateRequest(attributes: RequestAttributes): void {
  hooks?.annotateRequest(attributes);
}

/** Before the process exits: spans still buffered are sent. */
export async function stopTracing(): Promise<void> {
  await hooks?.shutdown();
}
