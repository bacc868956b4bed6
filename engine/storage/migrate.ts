/** Runs the migrations in `migrations/` (compiled next to this file's tree) up to the latest, then attaches the change capture to every declared table. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { unbounded, type DatabaseConfig } from '../config.js';
import { connect } from './connect.js';
import { syncCaptureTriggers } from '../audit/capture-triggers.js';
import { loadRegistry } from '../registry/registry.js';

/** The compiled migrations (`dist/migrations`). */
export const migrationsDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ directory: migrationsDirectory, loadExtensions: ['.js'] })) as [number, string[]];
  await syncCaptureTriggers(knex, (await loadRegistry()).resources);
  return applied;
}

/**
 * Migrations for the service, which has opened `db` with request bounds: on a server they run over a
 * connection of their own without those bounds (an index over a million rows takes its time); the
 * embedded database has no bounds and admits one client only.
 */
export async function migrateForService(db: Knex, config: DatabaseConfig): Promise<string[]> {
  if (!config.databaseUrl) return migrateLatest(db);
  const own = connect(unbounded({ ...config, bounds: { ...config.bounds, poolSize: 1 } }));
  try {
    return await migrateLatest(own);
  } finally {
    await own.destroy();
  }
}
