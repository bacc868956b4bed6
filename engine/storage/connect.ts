/**
 * The database: a pg pool on `DATABASE_URL`, or embedded PGlite persisted under the data directory.
 * Values are serialised to JSON in SQL (see serialise.ts), so both drivers answer alike.
 */
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { Config } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';

type ClientClass = typeof knexFactory.Client;

/** PGlite through Knex, holding the data directory's lock from creation until `destroy`. */
function lockedPgLite(dir: string): ClientClass {
  const Base = ClientPgLite as unknown as ClientClass;
  return class extends Base {
    private readonly release = lockDataDir(dir);
    override async destroy(callback?: (error?: unknown) => void): Promise<void> {
      try {
        await super.destroy(callback);
      } finally {
        this.release();
      }
    }
  } as ClientClass;
}

export function connect(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Knex {
  if (config.databaseUrl) {
    return knexFactory({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 10 } });
  }
  return knexFactory({
    client: lockedPgLite(config.dataDir),
    dialect: 'postgres',
    connection: { connectionString: `file://${config.dataDir}` },
  } as Knex.Config);
}
