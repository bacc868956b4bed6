/** JSON logs. Credentials never reach a log line: headers are not logged, and these paths are redacted anyway. */
import { pino, type Logger } from 'pino';

/** The longest a line waits in the buffer. */
const FLUSH_EVERY_MS = 100;

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
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  let written = false;
  const write = destination.write.bind(destination);
  destination.write = (line: string) => ((written = true), write(line));
  destination.on('write', (bytes: number) => void (bytes > 0 && (written = true)));
  setInterval(() => {
    if (!written) return;
    written = false;
    destination.flush();
  }, FLUSH_EVERY_MS).unref();
  return pino(
    {
      level,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', 'password'], censor: '[redacted]' },
    },
    destination,
  );
}

/** Resolves once every buffered line is written. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
export type { Logger };
