/** Starts the whole service (database, migrations, first admin, HTTP) and stops it cleanly; used by main and tests. */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import cluster from 'node:cluster';
import { boundsOf, DEFAULT_FILES, DEFAULT_JOBS, DEFAULT_LISTS_PER_USER, DEFAULT_REPORTS, DEFAULT_SHUTDOWN_TIMEOUT_MS, DEFAULT_WEBHOOKS, type DatabaseConfig, type ServerConfig } from './config.js';
import { Dispatcher } from './webhooks/dispatcher.js';
import { openBlobStore } from './files/stores.js';
import type { Logger } from './log.js';
import { createApp, type App } from './http/app.js';
import { answerClientError } from './http/client-errors.js';
import { drainable } from './http/drain.js';
import { openDatabase } from './storage/connect.js';
import { checkTimeZone } from './reporting/time-zone.js';
import { readRouting } from './storage/replicas.js';
import { StartupError } from './startup-error.js';
import { migrateForService } from './storage/migrate.js';
import { loadRegistry, type Registry } from './registry/registry.js';
import { JobRunner } from './jobs/runner.js';
import type { MetricsServer } from './metrics/server.js';
import { DEFAULT_IMPORTS } from './exchange/import-routes.js';
import { createUser } from './auth/users.js';
import { createToken } from './auth/tokens.js';
import { PrincipalCache } from './auth/principal-cache.js';
import { listenForPrincipalChanges, principalsChannel } from './auth/principal-changes.js';
import { setUpFieldKeys } from './storage/field-keys.js';

/** How long the pool may take to close after requests were cut at the shutdown timeout. */
const DESTROY_AFTER_CUT_MS = 1_000;

export interface RunningService {
  url: string;
  /** Where `/metrics` is served (METRICS, a single process). */
  metricsUrl: string | undefined;
  db: Knex;
  app: App;
  jobs: JobRunner;
  close(): Promise<void>;
}

/** On an empty database: a superuser `admin` with a random password and one token, printed once. */
async function createFirstAdmin(db: Knex): Promise<{ password: string; token: string } | undefined> {
  return db.transaction(async (trx) => {
    await trx.raw('lock table users in exclusive mode');
    if (await trx('users').first('id')) return undefined;
    const password = randomBytes(12).toString('base64url');
    const id = await createUser(trx, { username: 'admin', password, isSuperuser: true });
    const { key } = await createToken(trx, id, 'first start');
    return { password, token: key };
  });
}

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process listens there; stop it or choose another PORT)',
  EACCES: 'permission denied (ports below 1024 need privileges; choose another PORT)',
  EADDRNOTAVAIL: 'this machine has no such address (choose another HOST)',
  ENOTFOUND: 'the host name does not resolve (choose another HOST)',
};

/** Listens, or fails with one line naming HOST:PORT and why. */
function listen(server: http.Server, { host, port }: Pick<ServerConfig, 'host' | 'port'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) =>
      reject(new StartupError(`Cannot listen on ${host}:${port} (HOST, PORT): ${LISTEN_FAILURES[err.code ?? ''] ?? err.message}.`));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/** Migrations, then the first admin on an empty database (printed unless `quiet`): once per start, before serving. */
async function prepare(db: Knex, config: DatabaseConfig, quiet: boolean): Promise<void> {
  await migrateForService(db, config);
  const first = await createFirstAdmin(db);
  if (first && !quiet) {
    process.stdout.write(
      `\nFirst start: created superuser "admin".\n  password: ${first.password}\n  API token: ${first.token}\nThese are shown once; keep them.\n\n`,
    );
  }
}

/** `prepare` alone, for a cluster's primary, which serves nothing itself. */
export async function prepareDatabase(config: DatabaseConfig): Promise<void> {
  const db = await openDatabase(config);
  try {
    await prepare(db, config, false);
  } finally {
    await db.destroy();
  }
}

/**
 * Serves; `prepared`: a cluster's worker, whose primary has migrated and bootstrapped already;
 * `registry`: the declarations to serve (default: those of `resources/`).
 */
export async function startService(
  config: ServerConfig,
  log: Logger,
  opts: { quiet?: boolean; prepared?: boolean; registry?: Registry } = {},
): Promise<RunningService> {
  const registry = opts.registry ?? (await loadRegistry());
  setUpFieldKeys(config, registry.resources, (message) => log.warn(message));
  const principals = new PrincipalCache(config.principalCacheMs);
  const db = await openDatabase(config, principalsChannel(principals));
  const reports = { ...DEFAULT_REPORTS, ...config.reports };
  await checkTimeZone(db, reports.timeZone).catch(async (err: unknown) => {
    await db.destroy();
    throw err;
  });
  if (!opts.prepared) await prepare(db, config, opts.quiet ?? false);
  const changes = await listenForPrincipalChanges(db, config.databaseUrl, principals, log);
  const reads = readRouting(db, config, log);
  const webhooks = { ...DEFAULT_WEBHOOKS, ...config.webhooks };
  const dispatcher = webhooks.dispatch ? new Dispatcher(db, webhooks, log, registry.resources) : undefined;
  const jobSettings = { ...DEFAULT_JOBS, ...config.jobs };
  const jobs = new JobRunner(db, registry, jobSettings, log);
  // prom-client (which loads @opentelemetry/api) only when metrics are on
  const metrics = config.metrics && new (await import('./metrics/metrics.js')).Metrics({ db, reads, principals, dispatcher, jobs: { waiting: () => jobs.waiting(), runs: () => jobs.counts() } });
  const files = { ...DEFAULT_FILES, ...config.files };
  const app = createApp({
    db,
    registry,
    log,
    secureCookies: config.secureCookies,
    trustProxy: config.trustProxy,
    publicUrl: config.publicUrl,
    maxListRows: config.maxListRows,
    listTurns: { perUser: config.listsPerUser ?? DEFAULT_LISTS_PER_USER, waitMs: boundsOf(config).acquireTimeoutMs },
    principals,
    reads,
    corsOrigins: config.corsOrigins,
    mcpWriteEnabled: config.mcpWriteEnabled,
    metrics,
    reports,
    files: { store: await openBlobStore(files, config.dataDir), maxBytes: files.maxBytes },
    imports: { ...DEFAULT_IMPORTS, ...config.imports },
  });
  const server = http.createServer();
  server.on('clientError', answerClientError);
  // idle connections outlive the clients' and load balancers' (~60 s), so the server never
  // closes one just as a client reuses it
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const drain = drainable(server, app.koa.callback());
  let metricsServer: MetricsServer | undefined;
  try {
    await listen(server, config);
    if (metrics && config.metrics) {
      const { reportToPrimary, serveMetrics } = await import('./metrics/server.js');
      // a cluster's primary serves the workers' metrics summed
      if (cluster.isWorker) reportToPrimary(metrics.registry);
      else metricsServer = await serveMetrics(config.host, config.metrics.port, metrics.registry);
    }
    await jobs.start();
    if (jobSettings.run) app.imports.start(jobSettings.pollSeconds);
  } catch (err) {
    await app.imports.stop();
    await jobs.stop();
    await metricsServer?.close();
    metrics?.close();
    await new Promise((resolve) => server.close(resolve));
    await changes.close();
    await reads.close();
    await db.destroy();
    throw err;
  }
  dispatcher?.start();
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  log.info({ url, metrics: metricsServer?.url, database: config.databaseUrl ? 'postgres' : `pglite:${config.dataDir}` }, 'listening');
  return {
    url,
    metricsUrl: metricsServer?.url,
    db,
    app,
    jobs,
    close: async () => {
      const finished = await drain.close(config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
      await app.imports.stop();
      await jobs.stop();
      await dispatcher?.stop();
      await metricsServer?.close();
      metrics?.close();
      await changes.close();
      await reads.close();
      // a request cut off may still hold a connection; its statement has no one left to answer,
      // and the server rolls it back when the process has gone
      await (finished ? db.destroy() : Promise.race([db.destroy(), sleep(DESTROY_AFTER_CUT_MS)]));
    },
  };
}
