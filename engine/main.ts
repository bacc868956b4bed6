/** `npm start`: migrate, create the first admin on an empty database, serve. */
import { readConfig } from './config.js';
import { createLogger } from './log.js';
import { startService } from './service.js';

const config = readConfig();
const log = createLogger(config.logLevel);
startService(config, log).then(
  (svc) => {
    const stop = () => void svc.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (err: unknown) => {
    log.fatal({ err }, 'service failed to start');
    process.exit(1);
  },
);
