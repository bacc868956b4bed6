/**
 * The Koa application: the front (front.ts: request log → error rendering → security headers and
 * CORS → path conventions) → health → public endpoints (and `/mcp`, which checks its token itself) → the route
 * table (authentication, then the route) → 404. Everything is built once from the registry.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import { createAjv } from '../crud/validator.js';
import { ResourceService } from '../crud/service.js';
import type { Logger } from '../log.js';
import type { Registry } from '../registry/registry.js';
import type { Resource } from '../registry/resource.js';
import { PrincipalCache } from '../auth/principal-cache.js';
import { sessionMiddleware } from '../auth/sessions.js';
import { TokenAuthenticator } from '../auth/token-auth.js';
import type { ReadRouting } from '../storage/replicas.js';
import { authenticator, notFoundAfterAuthentication } from './authenticate.js';
import { mountAdminApp } from './admin-app.js';
import { mountSummary } from '../admin/summary.js';
import { mountAuthRoutes } from './auth-routes.js';
import { mountBatch } from './batch-routes.js';
import { mountFavicon } from './favicon.js';
import { mountHealth } from './health.js';
import { IdempotentPosts } from './idempotency.js';
import { mountMcp } from '../mcp/server.js';
import { mountSchema } from '../openapi/routes.js';
import { DEFAULT_BOUNDS, DEFAULT_LISTS_PER_USER, DEFAULT_REPORTS, type ReportSettings } from '../config.js';
import { ListTurns } from './list-turns.js';
import { useFront } from './front.js';
import { mountResource } from './resource-routes.js';
import { RouteTable } from './route-table.js';
import { DeclaredWrites } from '../crud/declared-writes.js';
import type { Metrics } from '../metrics/metrics.js';
import { Revisions } from '../history/revisions.js';
import { mountHistory, mountTrashRestore } from '../history/routes.js';
import { Trash } from '../history/trash.js';
import type { BlobStore } from '../files/blob-store.js';
import { FileRoutes } from '../files/routes.js';
import { ImportJobs } from '../exchange/import-jobs.js';
import { DEFAULT_IMPORTS, mountImports, type ImportSettings } from '../exchange/import-routes.js';

export interface Services {
  db: Knex;
  registry: Registry;
  log: Logger;
  /** Mark session and CSRF cookies Secure (behind HTTPS). */
  secureCookies?: boolean;
  /** Believe the proxy in front: `X-Forwarded-Proto` (HTTPS) and the last `X-Forwarded-For` entry (client address). */
  trustProxy?: boolean;
  /** PUBLIC_URL: where links point, whatever a request's Host says. */
  publicUrl?: string;
  /** MAX_LIST_ROWS: the most records one list answer holds. */
  maxListRows?: number;
  /** LISTS_PER_USER and how long a list waits for its user's turn (list-turns.ts); default: 4 and POOL_ACQUIRE_TIMEOUT_MS's default. */
  listTurns?: { perUser: number; waitMs: number };
  /** Token principals kept between requests; none kept without one. */
  principals?: PrincipalCache;
  /** Where GET lists and details read (read replicas); default: `db`. */
  reads?: ReadRouting;
  /** CORS_ORIGINS: origins whose scripts may call the API. */
  corsOrigins?: readonly string[];
  /** MCP_WRITE_ENABLED: the MCP tools include create_record and update_record. */
  mcpWriteEnabled?: boolean;
  /** METRICS: every request is counted and timed here. */
  metrics?: Metrics;
  /** TZ and AGGREGATE_MAX_GROUPS; default: DEFAULT_REPORTS. */
  reports?: ReportSettings;
  /** Where file bytes live and FILE_MAX_BYTES; without it the file routes are not served. */
  files?: { store: BlobStore; maxBytes: number };
  /** IMPORT_SYNC_MAX_BYTES and IMPORT_MAX_BYTES (engine/exchange). */
  imports?: ImportSettings;
}

export interface App {
  koa: Koa;
  /** The modules' resources' services. */
  services: Map<string, ResourceService>;
  /** The engine tables' services (registry.tables): served and documented as resources, out of MCP's and the admin app's reach. */
  tables: Map<string, ResourceService>;
  /** Background imports: queued by the import routes, run by `start` on instances with JOBS on. */
  imports: ImportJobs;
}

export function createApp({
  db,
  registry,
  log,
  secureCookies = false,
  trustProxy = false,
  publicUrl,
  maxListRows,
  listTurns = { perUser: DEFAULT_LISTS_PER_USER, waitMs: DEFAULT_BOUNDS.acquireTimeoutMs },
  principals = new PrincipalCache(0),
  reads,
  corsOrigins = [],
  mcpWriteEnabled = false,
  metrics,
  reports = DEFAULT_REPORTS,
  files,
  imports = DEFAULT_IMPORTS,
}: Services): App {
  // one proxy: the address it appends is the client's; earlier entries are the client's own claims
  const koa = new Koa({ proxy: trustProxy, maxIpsCount: 1 });
  koa.silent = true;
  koa.context.publicUrl = publicUrl;
  const ajv = createAjv();
  const serviceOf = (r: Resource) => [r.key, new ResourceService(r, db, ajv, registry, { maxRows: maxListRows, reads, reports })] as const;
  const services = new Map(registry.resources.map(serviceOf));
  const tables = new Map(registry.tables.map(serviceOf));

  // paths are lower-case in the schema; `/API/...` must not reach a route (and so never skip authentication)
  const publicRouter = new Router({ sensitive: true });
  mountHealth(publicRouter, db);
  mountAdminApp(publicRouter, registry, services);
  mountFavicon(publicRouter);
  mountSchema(publicRouter, registry, new Map([...services, ...tables]));

  const session = sessionMiddleware(koa, db, secureCookies);
  const tokens = new TokenAuthenticator(db, principals);
  const authenticate = authenticator(db, tokens, session);
  const histories = new Map([...services].map(([key, service]) => [key, new Revisions(db, service)]));
  mountMcp(publicRouter, services.values(), tokens, mcpWriteEnabled, histories);
  const routes = new RouteTable();
  mountAuthRoutes(publicRouter, routes, { db, registry, ajv, secureCookies, session });
  const idempotent = new IdempotentPosts(db);
  const lists = new ListTurns(listTurns.perUser, listTurns.waitMs);
  for (const service of services.values()) mountResource(routes, service, idempotent, lists);
  for (const batch of registry.batches) mountBatch(routes, batch, services.get(batch.resource.key)!, idempotent);
  mountSummary(routes, db, registry.resources);
  const importJobs = new ImportJobs(db, services, log);
  mountImports(routes, services.values(), importJobs, imports);
  for (const table of tables.values()) {
    const declared = table.resource.engineTable?.writes;
    mountResource(routes, table, idempotent, lists, declared && new DeclaredWrites(table, declared, ajv));
  }
  for (const revisions of histories.values()) mountHistory(routes, revisions);
  mountTrashRestore(routes, new Trash(db, services, registry.resources));

  useFront(koa, { log, metrics, secureCookies, corsOrigins, redirects: registry.redirects });
  koa.use(publicRouter.routes());
  // every route of the table authenticates first, and so do the file routes
  if (files) koa.use(new FileRoutes(db, files.store, registry.resources, files.maxBytes).middleware(authenticate));
  koa.use(routes.middleware(authenticate));
  koa.use(notFoundAfterAuthentication(authenticate));
  return { koa, services, tables, imports: importJobs };
}
