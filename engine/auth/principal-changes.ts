/**
 * Hears the `NOTIFY principals_changed` that the triggers of migrations/0220_principal_changes.ts
 * send on commit of any change to users, groups, memberships or tokens, and drops the cached
 * principals. On PostgreSQL one dedicated connection per instance listens (outside the pool, so it
 * never waits behind requests); while it is down, the cache is bypassed, and it reconnects with
 * backoff. A connection that silently died is found by a periodic ping. The pooled connections
 * listen too (`principalsChannel`), so the instance that made a change drops its cache before it
 * answers; the others hear it as soon as PostgreSQL delivers it, typically within a millisecond of
 * the commit. PGlite serves one process, which both writes and hears.
 */
import pg from 'pg';
import type { PGliteInterface } from '@electric-sql/pglite';
import type { Knex } from 'knex';
import type { Logger } from '../log.js';
import type { Listen } from '../storage/connect.js';
import type { PrincipalCache } from './principal-cache.js';

/** The channel the triggers notify (named in the migration too, which must not change). */
const CHANNEL = 'principals_changed';
const CONNECT_TIMEOUT_MS = 10_000;
const PING_EVERY_MS = 5_000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 10_000;
export const LISTENER_NAME = 'bms principal listener';

/** For the pool: every pooled connection drops `cache` on a change it hears (none listens when nothing is cached). */
export const principalsChannel = (cache: PrincipalCache): Listen | undefined =>
  cache.enabled ? { channel: CHANNEL, onNotify: (payload) => cache.changed(payload) } : undefined;

export interface ChangeListener {
  close(): Promise<void>;
}

async function listenOnPgLite(db: Knex, cache: PrincipalCache): Promise<ChangeListener> {
  // knex-pglite keeps its one PGlite instance on the client
  const pglite = (db.client as { pglite: PGliteInterface }).pglite;
  const unlisten = await pglite.listen(CHANNEL, (payload) => cache.changed(payload));
  cache.setListening(true);
  return {
    close: async () => {
      cache.setListening(false);
      await unlisten();
    },
  };
}

async function listenOnServer(databaseUrl: string, cache: PrincipalCache, log: Logger): Promise<ChangeListener> {
  let current: pg.Client | undefined;
  let closed = false;
  let retryIn = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;
  let ping: NodeJS.Timeout | undefined;

  /** Stops trusting the cache and drops `client`; unless closing, tries again after a growing pause. */
  const lost = async (client: pg.Client, err?: unknown): Promise<void> => {
    if (client !== current) return;
    current = undefined;
    clearInterval(ping);
    cache.setListening(false);
    if (!closed) {
      log.warn({ err, retryInMs: retryIn }, 'principal cache bypassed: the connection listening for changes is lost');
      retry = setTimeout(() => void connect(), retryIn);
      retryIn = Math.min(retryIn * 2, RETRY_MAX_MS);
    }
    await client.end().catch(() => undefined);
  };

  const connect = async () => {
    // a ping that gets no answer fails after query_timeout, and the connection is replaced
    const client = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: PING_EVERY_MS,
      // so an operator (and a test) can tell it apart in pg_stat_activity
      application_name: `${LISTENER_NAME} ${process.pid}`,
    });
    current = client;
    client.on('error', (err) => void lost(client, err));
    client.on('end', () => void lost(client));
    client.on('notification', (message) => cache.changed(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      await lost(client, err);
      return;
    }
    if (client !== current) return;
    if (retryIn > RETRY_FIRST_MS) log.info('principal cache in use again: listening for changes');
    retryIn = RETRY_FIRST_MS;
    cache.setListening(true);
    ping = setInterval(() => void client.query('select 1').catch((err: unknown) => lost(client, err)), PING_EVERY_MS);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      if (current) await lost(current);
    },
  };
}

/** Starts hearing changes for `cache`; resolves once the first attempt is done (heard or not). */
export async function listenForPrincipalChanges(db: Knex, databaseUrl: string | undefined, cache: PrincipalCache, log: Logger): Promise<ChangeListener> {
  if (!cache.enabled) return { close: async () => undefined };
  return databaseUrl ? listenOnServer(databaseUrl, cache, log) : listenOnPgLite(db, cache);
}
