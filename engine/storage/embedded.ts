/**
 * The embedded database: PGlite through Knex, persisted under the data directory (or in memory).
 * Its own module, imported only when there is no DATABASE_URL, so a process on a server never loads
 * PGlite (about 3 MiB of heap held for the life of the process).
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { log } from './knex-log.js';
import { lockDataDir } from './data-dir-lock.js';

type ClientClass = typeof knexFactory.Client;

/**
 * knex-pglite names a delete's command "DEL" (Knex's method name, upper-cased) where Knex's pg
 * client looks for "DELETE" to answer the number of rows deleted: every `.delete()` answered the
 * whole driver result, which no count compares to.
 */
type Responding = new (config: Knex.Config) => { processResponse(obj: { method?: string }, runner: unknown): unknown };
const PGliteClient = class extends (ClientPgLite as unknown as Responding) {
  override processResponse(obj: { method?: string }, runner: unknown): unknown {
    return super.processResponse(obj.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
} as unknown as ClientClass;

/**
 * Knex on an embedded database with the extensions the migrations create (pg_trgm, for trigram
 * indexes): PGlite bundles them, but loads only those it is given. In memory without `dataDir`.
 */
export function embeddedDatabase(dataDir?: string, client: ClientClass = PGliteClient): Knex {
  const pglite = new PGlite({ dataDir, extensions: { pg_trgm } });
  return knexFactory({ client, dialect: 'postgres', connection: { pglite }, log } as Knex.Config);
}

/** PGlite through Knex, releasing the data directory's lock on `destroy`. */
function releasing(release: () => void): ClientClass {
  return class extends PGliteClient {
    override async destroy(callback?: (error?: unknown) => void): Promise<void> {
      try {
        await super.destroy(callback);
      } finally {
        release();
      }
    }
  } as ClientClass;
}

/** The embedded database in `dir`, locked before PGlite opens it and until the Knex instance is destroyed. */
export function lockedEmbedded(dir: string): Knex {
  const release = lockDataDir(dir);
  try {
    return embeddedDatabase(`file://${dir}`, releasing(release));
  } catch (err) {
    release();
    throw err;
  }
}
