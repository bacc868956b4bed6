/** `npm start`: migrate, create the first admin on an empty database, serve. */
import { readConfig } from './config.js';
import { createLogger } from './log.js';
import { startService } from './service.js';
import { DataDirLockedError } from './storage/data-dir-lock.js';

const config = readConfig();
const log = createLogger(config.logLevel);
startService(config, log).then(
  (svc) => {
    const stop = () => void svc.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (err: unknown) => {
    // a refusal that says what to do is one line, not a stack
    if (err instanceof DataDirLockedError) process.stderr.write(`Error: ${err.message}\n`);
    else log.fatal({ err }, 'service failed to start');
    process.exit(1);
  },
);
