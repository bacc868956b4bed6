/** Runs the migrations in `migrations/` (compiled next to this file's tree) up to the latest, then attaches the change capture, the link capture and the trash to the declared tables. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import type pg from 'pg';
import { unbounded, type DatabaseConfig } from '../config.js';
import { connect } from './connect.js';
import { onServer } from './statements.js';
import { syncCaptureTriggers } from '../audit/capture-triggers.js';
import { syncLinkCaptureTriggers } from '../audit/link-capture.js';
import { syncTrashTriggers } from '../history/trash-trigger.js';
import { loadRegistry } from '../registry/registry.js';

/** The compiled migrations (`dist/migrations`). */
export const migrationsDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** The advisory lock that instances migrating the same server take in turn (any number, the same in every process). */
const MIGRATION_LOCK = 0x626d73;

async function latest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ directory: migrationsDirectory, loadExtensions: ['.js'] })) as [number, string[]];
  const { resources } = await loadRegistry();
  await syncCaptureTriggers(knex, resources);
  await syncLinkCaptureTriggers(knex, resources);
  await syncTrashTriggers(knex, resources);
  return applied;
}

/**
 * On a server, under an advisory lock held by a connection outside the pool, so instances starting
 * together take turns: Knex's own lock needs its tables, which two migrators on an empty database
 * race to create (one fails), and it refuses rather than waits outside a transaction. The later
 * ones find nothing left to do. A migrator that dies releases the lock with its connection. (The
 * embedded database serves one process.)
 */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  if (!onServer(knex)) return latest(knex);
  const holder = (await knex.client.acquireRawConnection()) as pg.Client;
  try {
    await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await latest(knex);
  } finally {
    await knex.client.destroyRawConnection(holder);
  }
}

/**
 * Migrations for the service, which has opened `db` with request bounds: on a server they run over a
 * connection of their own without those bounds (an index over a million rows takes its time); the
 * embedded database has no bounds and admits one client only.
 */
export async function migrateForService(db: Knex, config: DatabaseConfig): Promise<string[]> {
  const databaseUrl = config.databaseUrl;
  if (!databaseUrl) return migrateLatest(db);
  const own = connect(unbounded({ ...config, databaseUrl, bounds: { ...config.bounds, poolSize: 1 } }));
  try {
    return await migrateLatest(own);
  } finally {
    await own.destroy();
  }
}
