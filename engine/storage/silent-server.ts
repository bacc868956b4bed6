/**
 * Knex's pg client, dropping a connection whose server stays silent too long while a query is in
 * flight. statement_timeout is enforced by the server, so a server that is frozen (stopped
 * process, lost host, full disk stall) enforces nothing and the socket stays open: without this,
 * a request would wait for as long as the freeze lasts. The dropped query fails with ETIMEDOUT
 * (answered 503); the connection is discarded rather than pooled, so a transaction cut off
 * mid-way can never be continued by the next request, and the server rolls it back when it wakes.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import type knexFactory from 'knex';

type ClientClass = typeof knexFactory.Client;

/** What this needs of a pg.Client, as knex hands it to its dialect. */
interface PgConnection {
  connection: { stream: Socket };
  __knex__disposed?: unknown;
}

/**
 * Runs `query`, destroying the connection when the server sends nothing for `silenceMs`, unless
 * `heldBack` says the silence is ours (a slow reader has paused the stream, so nothing was asked).
 */
async function watched<T>(conn: PgConnection, silenceMs: number, query: () => Promise<T>, heldBack = () => false): Promise<T> {
  const socket = conn.connection.stream;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (heldBack()) return arm();
      const err = Object.assign(new Error(`The database sent nothing for ${silenceMs} ms.`), { code: 'ETIMEDOUT' });
      conn.__knex__disposed = err;
      socket.destroy(err);
    }, silenceMs);
  };
  // every byte counts as life: a long list streams many answers, each within the bound
  socket.on('data', arm);
  arm();
  try {
    return await query();
  } finally {
    clearTimeout(timer);
    socket.off('data', arm);
  }
}

const PgClient = createRequire(import.meta.url)('knex/lib/dialects/postgres/index.js') as ClientClass;

/** The pg client class for knex's `client` option, watching every query and stream with `silenceMs`. */
export function silenceBoundedClient(silenceMs: number): ClientClass {
  const Base = PgClient as unknown as new (config: unknown) => {
    _query(conn: PgConnection, obj: unknown): Promise<unknown>;
    _stream(conn: PgConnection, obj: unknown, stream: Writable, options: unknown): Promise<unknown>;
  };
  class SilenceBounded extends Base {
    override _query(conn: PgConnection, obj: unknown): Promise<unknown> {
      return watched(conn, silenceMs, () => super._query(conn, obj));
    }
    override _stream(conn: PgConnection, obj: unknown, stream: Writable, options: unknown): Promise<unknown> {
      return watched(conn, silenceMs, () => super._stream(conn, obj, stream, options), () => stream.writableNeedDrain);
    }
  }
  return SilenceBounded as unknown as ClientClass;
}
