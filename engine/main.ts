/**
 * `npm start`: check the settings, migrate, create the first admin on an empty database, serve.
 * With WEB_CONCURRENCY > 1 the primary does the first three once, then forks workers that serve.
 * The service's modules are imported only after the settings are read, so that tracing (when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set) is running before koa, pg and node:http load and its
 * instrumentations patch them; without it no OpenTelemetry module is loaded at all.
 */
import cluster from 'node:cluster';
import { readConfig } from './config.js';
import { createLogger, flushLog, type Logger } from './log.js';
import { StartupError } from './startup-error.js';

let log: Logger | undefined;
try {
  const config = readConfig();
  log = createLogger(config.logLevel);
  if (config.tracing) await (await import('./tracing/start.js')).startTracing();
  const { superviseWorkers } = await import('./cluster.js');
  const { prepareDatabase, startService } = await import('./service.js');
  const { stopTracing } = await import('./tracing/hooks.js');
  if (config.workers > 1 && cluster.isPrimary) {
    await prepareDatabase(config);
    if (config.metrics) {
      const { fromWorkers, serveMetrics } = await import('./metrics/server.js');
      const metrics = await serveMetrics(config.host, config.metrics.port, fromWorkers());
      log.info({ metrics: metrics.url }, 'serving the workers\' metrics');
    }
    superviseWorkers(config.workers, log);
  } else {
    const svc = await startService(config, log, { prepared: cluster.isWorker });
    let stopping = false;
    // Ctrl-C reaches a cluster's workers twice: SIGINT from the terminal, SIGTERM from their primary
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log!.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'stopping: finishing requests in flight');
      void svc.close().then(stopTracing).then(() => flushLog(log!)).then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
} catch (err) {
  // what the user can fix is one plain line; anything else is a bug and keeps its stack
  if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
  else if (log) log.fatal({ err }, 'service failed to start');
  else throw err;
  if (log) await flushLog(log);
  process.exit(1);
}
