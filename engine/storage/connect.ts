/**
 * The database: a pg pool on `DATABASE_URL`, each connection set up for the service's statements;
 * without it, openDatabase opens the embedded PGlite (embedded.ts, loaded only then). Values are
 * serialised to JSON in SQL (see serialise.ts), so both drivers answer alike.
 */
import knexFactory, { type Knex } from 'knex';
import type pg from 'pg';
import { boundsOf, redactUrl, type DatabaseConfig } from '../config.js';
import { StartupError } from '../startup-error.js';
import { log } from './knex-log.js';
import { SilenceWatch } from './silent-server.js';
import { boundStatements, CUSTOM_PLANS, KEEP_HEAP } from './statements.js';

/** A server that does not answer fails a connection after this long instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How much longer than statement_timeout a server may stay silent in a statement before its
 * connection is dropped: a server that works answers (with the statement's cancellation) well within it.
 */
const SILENCE_GRACE_MS = 2_000;

/**
 * A channel every pooled server connection listens on. A session hears its own notifications
 * before its COMMIT answers, so the process that made a change has heard of it before it answers
 * the request. (PGlite's one connection delivers them before the COMMIT answers anyway.)
 */
export interface Listen {
  channel: string;
  onNotify: (payload: string) => void;
}

type AfterCreate = (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => void;

/**
 * Each new pooled connection keeping at most `statements` named statements (and holding
 * CUSTOM_PLANS when it keeps any), watched by `watch` (when bounded) and listening on `listen`'s
 * channel (when given).
 */
function preparing(statements: number, watch: SilenceWatch | undefined, listen: Listen | undefined): AfterCreate {
  const setUp = async (conn: pg.Client): Promise<void> => {
    // before the bound is set, so it is not counted against it (nor ever closed)
    if (statements > 0) await conn.query(CUSTOM_PLANS);
    await conn.query(KEEP_HEAP);
    boundStatements(conn, statements);
    watch?.watch(conn);
    if (!listen) return;
    conn.on('notification', (message) => listen.onNotify(message.payload ?? ''));
    await conn.query(`listen ${listen.channel}`);
  };
  return (conn, done) =>
    void setUp(conn).then(
      () => done(null, conn),
      (err: Error) => done(err, conn),
    );
}

/**
 * Whether a pooled connection may be handed out: not while PostgreSQL says it is inside a
 * transaction. A connection given back in one (seen under heavy load in the soak: "there is already a
 * transaction in progress") would run the next request's autocommit write inside that transaction, to
 * be answered 201 and then rolled back with it; the pool closes such a connection instead, which
 * makes PostgreSQL roll back what ran in it, and opens a fresh one.
 */
const outsideTransaction = (conn: pg.Client): boolean => {
  const status = conn.getTransactionStatus();
  return status !== 'T' && status !== 'E';
};

/** A pool on a server; the embedded database is opened by openDatabase alone (embedded.ts, loaded only then). */
export function connect(config: DatabaseConfig & { databaseUrl: string }, listen?: Listen): Knex {
  const bounds = boundsOf(config);
  const connection: pg.ClientConfig = {
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // the server cancels what runs or waits too long, so one slow request cannot hold the pool
    statement_timeout: bounds.statementTimeoutMs,
    lock_timeout: bounds.lockTimeoutMs,
    // JIT compiles a statement for its estimated cost: an unpaged list estimates the whole table and
    // waited most of a second for its first records, while the service's statements are index-driven
    // and gain nothing from it (docs/performance.md, "JIT")
    options: '-c jit=off',
    // a server that vanished without closing the socket is noticed instead of waited on forever
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  return knexFactory({
    client: 'pg',
    connection: connection as Knex.PgConnectionConfig,
    pool: {
      min: 0,
      max: bounds.poolSize,
      acquireTimeoutMillis: bounds.acquireTimeoutMs || 2 ** 31 - 1,
      validate: outsideTransaction,
      // a frozen server enforces no statement_timeout: the client bounds its silence instead
      afterCreate: preparing(bounds.preparedStatements, bounds.statementTimeoutMs ? new SilenceWatch(bounds.statementTimeoutMs + SILENCE_GRACE_MS) : undefined, listen),
    },
    log,
  });
}

/**
 * Waits for an embedded database's PGlite to start (at once on a server). Its start (WebAssembly,
 * and initdb for a new directory or in memory) happens inside Knex's first connection, whose creation
 * the pool gives 30 s: a busy machine exceeded that, and the start failed with Knex's "Timeout
 * acquiring a connection". Awaited first, the start takes what it takes.
 */
export async function embeddedStarted(db: Knex): Promise<void> {
  await (db.client as { pglite?: { waitReady: Promise<void> } }).pglite?.waitReady;
}

const reason = (err: unknown): string =>
  err instanceof AggregateError ? err.errors.map(reason).join('; ') : err instanceof Error ? err.message || String(err) : String(err);

/** The database once it has answered a query; one that cannot be reached or opened is a StartupError naming the setting. */
export async function openDatabase(config: DatabaseConfig, listen?: Listen): Promise<Knex> {
  const url = config.databaseUrl;
  const db = url ? connect({ ...config, databaseUrl: url }, listen) : (await import('./embedded.js')).lockedEmbedded(config.dataDir);
  const what = url ? `the database at ${redactUrl(url)} (DATABASE_URL)` : `the embedded database in ${config.dataDir} (BMS_DATA_DIR)`;
  try {
    await embeddedStarted(db);
    await firstAnswer(db);
    return db;
  } catch (err) {
    await db.destroy().catch(() => undefined);
    if (silent(err)) throw new StartupError(`Cannot open ${what}: it accepted the connection but did not answer within ${CONNECT_TIMEOUT_MS / 1000} s.`);
    throw new StartupError(`Cannot open ${what}: ${reason(err)}.`);
  }
}

/** A server that accepts connections and never answers: pg's connect timeout, or the pool's shorter acquire timeout met first. */
const silent = (err: unknown): boolean => err instanceof Error && (err.name === 'KnexTimeoutError' || /timeout expired$/.test(err.message));

/**
 * `select 1`, waiting up to the connect timeout for the first connection: the pool's acquire
 * timeout (POOL_ACQUIRE_TIMEOUT_MS, 5 s) is shorter, and a start on a slow network deserves the
 * connect timeout's 10 s before it is called silent.
 */
async function firstAnswer(db: Knex): Promise<void> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  for (;;) {
    try {
      await db.raw('select 1');
      return;
    } catch (err) {
      if (!(err instanceof Error && err.name === 'KnexTimeoutError') || Date.now() >= deadline) throw err;
    }
  }
}
