/** Runs the migrations in `migrations/` (compiled next to this file's tree) up to the latest. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';

/** The compiled migrations (`dist/migrations`). */
export const migrationsDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ directory: migrationsDirectory, loadExtensions: ['.js'] })) as [number, string[]];
  return applied;
}
