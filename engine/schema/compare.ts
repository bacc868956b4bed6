/**
 * Declarations against migrations: the migrations run on a throwaway in-memory PGlite (no server,
 * nothing on disk, so the comparison runs anywhere, CI included), its catalogue is read, and the
 * difference to the declared schema is returned as changes.
 */
import type { Registry } from '../registry/registry.js';
import { embeddedStarted } from '../storage/connect.js';
import { embeddedDatabase } from '../storage/embedded.js';
import { migrateLatest } from '../storage/migrate.js';
import { readSchema } from './catalogue.js';
import { desiredSchema } from './desired.js';
import { diffSchemas, type Change } from './diff.js';
import { settleDefaults } from './settle.js';

export async function compareWithMigrations(registry: Registry): Promise<Change[]> {
  const want = desiredSchema(registry.resources);
  const db = embeddedDatabase();
  try {
    await embeddedStarted(db);
    await migrateLatest(db);
    const have = await readSchema(db);
    const managed = [...have.values()].filter((t) => t.managed).map((t) => t.name);
    await settleDefaults(db, have, new Set([...want.keys(), ...managed]));
    await settleDefaults(db, want, want.keys());
    return diffSchemas(want, have);
  } finally {
    await db.destroy();
  }
}
