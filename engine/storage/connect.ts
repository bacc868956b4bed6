/**
 * The database: a pg pool on `DATABASE_URL`, or embedded PGlite persisted under the data directory.
 * Values are serialised to JSON in SQL (see serialise.ts), so both drivers answer alike.
 */
import fs from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { Config } from '../config.js';

export function connect(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Knex {
  if (config.databaseUrl) {
    return knexFactory({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 10 } });
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { connectionString: `file://${config.dataDir}` },
  } as Knex.Config);
}
