/**
 * Drops a connection whose server stays silent too long while a statement waits on it.
 * statement_timeout is enforced by the server, so a server that is frozen (a stopped process, a
 * stalled host) enforces nothing, and its socket stays open: a request would wait as long as the
 * freeze lasts. A sweep once a second looks at each connection: one that is running a statement,
 * has not paused its own socket (a slow reader's back-pressure is no silence of the server's) and
 * has received nothing for the bound is destroyed. pg then fails its statement ("Connection
 * terminated unexpectedly", answered 503) and Knex discards the connection instead of pooling it,
 * so a transaction cut off mid-way is never continued by another request; the server rolls it back
 * when it wakes and finds the socket closed. Nothing is wrapped: queries run as pg runs them.
 */
import type { Socket } from 'node:net';
import type pg from 'pg';

const SWEEP_MS = 1_000;

/** What this needs of a pooled pg.Client. */
type Watched = pg.Client & { connection: { stream: Socket }; _getActiveQuery(): unknown };

export class SilenceWatch {
  /** Each live connection, with the last time it showed life or had nothing to wait for. */
  private readonly connections = new Map<Watched, number>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly silenceMs: number) {}

  /** Watches `conn` until it ends. */
  watch(conn: pg.Client): void {
    const watched = conn as Watched;
    const socket = watched.connection.stream;
    this.connections.set(watched, Date.now());
    socket.on('data', () => this.connections.set(watched, Date.now()));
    watched.once('end', () => {
      this.connections.delete(watched);
      if (this.connections.size === 0) this.stop();
    });
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [conn, since] of this.connections) {
      const socket = conn.connection.stream;
      if (!conn._getActiveQuery() || socket.isPaused()) this.connections.set(conn, now);
      else if (now - since > this.silenceMs) {
        this.connections.delete(conn);
        socket.destroy(Object.assign(new Error(`The database sent nothing for ${this.silenceMs} ms.`), { code: 'ETIMEDOUT' }));
      }
    }
  }

  private stop(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
