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

/** A statement's span: begun when it is sent, ended (with its error, if any) when it settles. */
export interface StatementTrace {
  begin(): (error?: unknown) => void;
}

interface TracingHooks {
  annotateRequest(attributes: RequestAttributes): void;
  statementTrace(sql: string): StatementTrace | undefined;
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

/**
 * A span for statement `sql` (text with placeholders, never values), under the span active now;
 * undefined when tracing is off or no span is active (a statement outside a request). For what
 * the pg instrumentation cannot see: a list's rows, read as a stream.
 */
export function statementTrace(sql: string): StatementTrace | undefined {
  return hooks?.statementTrace(sql);
}

/** Before the process exits: spans still buffered are sent. */
export async function stopTracing(): Promise<void> {
  await hooks?.shutdown();
}
