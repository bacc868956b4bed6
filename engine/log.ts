/** JSON logs. Credentials never reach a log line: headers are not logged, and these paths are redacted anyway. */
import { pino, type Logger } from 'pino';

/**
 * Lines are buffered and written asynchronously, so a slow stdout (a pipe, a busy log collector)
 * never holds up the event loop; `flushLog` writes what is pending before the process exits. They
 * go out once 4 kB are waiting or 100 ms have passed: a busy service writes a run of lines per
 * system call, not one per request (its request lines cost a tenth of a detail's CPU time).
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', 'password'], censor: '[redacted]' },
    },
    pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }),
  );
}

/** Resolves once every buffered line is written. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
export type { Logger };
