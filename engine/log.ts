/** JSON logs. Credentials never reach a log line: headers are not logged, and passwords and credential headers are censored anyway. */
import { pino, type Logger } from 'pino';

const CENSOR = '[redacted]';
const SECRET = 'password';
/** Censored by pino wherever a line or a child's bindings hold them. */
const REDACTED = [SECRET, 'req.headers.authorization', 'req.headers.cookie'];

/**
 * A line's object with the `password` of any object it holds censored, in a copy (the objects are
 * the caller's): pino's `*.password`. Given to pino as a path, a wildcard sends every value of
 * every line through its redaction's copy and serialisation (6 µs of a 10 µs request line); this
 * looks at each value's keys and copies only what it censors.
 */
function censorNestedSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in object) {
    const value = object[key];
    if (typeof value === 'object' && value !== null && SECRET in value) (copy ??= { ...object })[key] = censored(value);
  }
  return copy ?? object;
}

/**
 * A copy of `value` with its password censored. An error stays one, with its message and stack
 * (not enumerable, so a spread would drop them), for pino's error serialiser to write out.
 */
function censored(value: object): object {
  if (!(value instanceof Error)) return { ...value, [SECRET]: CENSOR };
  return Object.assign(Object.create(Object.getPrototypeOf(value) as object) as Error, value, { message: value.message, stack: value.stack, [SECRET]: CENSOR });
}

/** The longest a line waits in the buffer. */
const FLUSH_EVERY_MS = 100;
/** Lines go out once this many characters wait. */
const BATCH_CHARS = 4096;

/**
 * Lines are buffered and written asynchronously, so a slow stdout (a pipe, a busy log collector)
 * never holds up the event loop; `flushLog` writes what is pending before the process exits. They
 * go out once 4 kB are waiting or 100 ms have passed: a busy service writes a run of lines per
 * system call, not one per request (its request lines cost a tenth of a detail's CPU time). The
 * timer flushes only after lines were written or a write ended (a flush asked for while a write is
 * under way does nothing, and what that write left behind would wait for the next line): sonic-boom's
 * own `periodicFlush` writes an empty string every period, a system call ten times a second idle.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: BATCH_CHARS });
  let written = false;
  // lines are gathered here and handed to sonic-boom a batch at a time: its write measures the byte
  // length of all it holds on every call (4 µs a line once 4 kB wait), a string append costs 0.3
  let pending = '';
  const [write, flush, flushSync] = [destination.write.bind(destination), destination.flush.bind(destination), destination.flushSync.bind(destination)];
  const handOver = (): boolean => {
    const text = pending;
    pending = '';
    return text === '' || write(text);
  };
  destination.write = (line: string) => {
    written = true;
    pending += line;
    return pending.length < BATCH_CHARS || handOver();
  };
  destination.flush = (cb?: (err?: Error) => void) => (handOver(), flush(cb));
  // pino's exit hook flushes synchronously: what is gathered here goes too
  destination.flushSync = () => (handOver(), flushSync());
  destination.on('write', (bytes: number) => void (bytes > 0 && (written = true)));
  setInterval(() => {
    if (!written) return;
    written = false;
    destination.flush();
  }, FLUSH_EVERY_MS).unref();
  return pino({ level, redact: { paths: REDACTED, censor: CENSOR }, formatters: { log: censorNestedSecrets } }, destination);
}

/** Resolves once every buffered line is written. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
export type { Logger };
