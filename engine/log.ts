/** JSON logs. Credentials never reach a log line: headers are not logged, and these paths are redacted anyway. */
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', 'password'], censor: '[redacted]' },
  });
}
export type { Logger };
