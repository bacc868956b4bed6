/**
 * The database: a pg pool on `DATABASE_URL`, or embedded PGlite persisted under the data directory.
 * Values are serialised to JSON in SQL (see serialise.ts), so both drivers answer alike.
 */
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { ClientConfig } from 'pg';
import { DEFAULT_BOUNDS, redactUrl, type DatabaseConfig } from '../config.js';
import { StartupError } from '../startup-error.js';
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

/** A server that does not answer fails a connection after this long instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;

// a failed acquire also rejects the query that asked for it, which reports it; knex would add its
// stack on stdout, among the JSON log lines
const log = { warn: (message: string) => void (message.startsWith('Acquire connection error') || process.stderr.write(`${message}\n`)) };

export function connect(config: DatabaseConfig): Knex {
  if (config.databaseUrl) {
    const bounds = { ...DEFAULT_BOUNDS, ...config.bounds };
    const connection: ClientConfig = {
      connectionString: config.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // the server cancels what runs or waits too long, so one slow request cannot hold the pool
      statement_timeout: bounds.statementTimeoutMs,
      lock_timeout: bounds.lockTimeoutMs,
      // a server that vanished without closing the socket is noticed instead of waited on forever
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    };
    return knexFactory({
      client: 'pg',
      connection: connection as Knex.PgConnectionConfig,
      pool: { min: 0, max: bounds.poolSize, acquireTimeoutMillis: bounds.acquireTimeoutMs || 2 ** 31 - 1 },
      log,
    });
  }
  return knexFactory({
    client: lockedPgLite(config.dataDir),
    dialect: 'postgres',
    connection: { connectionString: `file://${config.dataDir}` },
    log,
  } as Knex.Config);
}

const reason = (err: unknown): string =>
  err instanceof AggregateError ? err.errors.map(reason).join('; ') : err instanceof Error ? err.message || String(err) : String(err);

/** The database once it has answered a query; one that cannot be reached or opened is a StartupError naming the setting. */
export async function openDatabase(config: DatabaseConfig): Promise<Knex> {
  const db = connect(config);
  try {
    await db.raw('select 1');
    return db;
  } catch (err) {
    await db.destroy().catch(() => undefined);
    const what = config.databaseUrl
      ? `the database at ${redactUrl(config.databaseUrl)} (DATABASE_URL)`
      : `the embedded database in ${config.dataDir} (BMS_DATA_DIR)`;
    throw new StartupError(`Cannot open ${what}: ${reason(err)}.`);
  }
}
