/**
 * Read replicas (DATABASE_REPLICA_URLS): GET lists and details read from the replicas in turn;
 * everything else reads from the primary, and so does any read inside a write's transaction.
 * Authentication and sessions stay on the primary too: a revoked token or ended session must be
 * refused at once, and a replica's lag must not bring it back. A replica that fails to connect is
 * marked down and the read runs again on the primary, so the client sees no error; a down replica
 * is probed every `retryMs` and used again once it answers. Each starts down and is probed at once,
 * so an unreachable one never delays a request.
 */
import type { Knex } from 'knex';
import { redactUrl, type ServerConfig } from '../config.js';
import type { Logger } from '../log.js';
import { connect } from './connect.js';
import { isConnectionFailure } from './db-errors.js';

/** How often a down replica is tried again unless the settings say otherwise (REPLICA_RETRY_MS). */
const DEFAULT_RETRY_MS = 5_000;

interface Replica {
  db: Knex;
  /** Its URL without a password, for the log. */
  name: string;
  up: boolean;
  probe?: NodeJS.Timeout;
}

/** A standby cancels a query that conflicts with replaying the primary's changes (SQLSTATE 40001): the primary can answer it. */
const isRecoveryConflict = (err: unknown): boolean => (err as { code?: string }).code === '40001';

export class ReadRouting {
  private turn = 0;
  private closed = false;

  /** Without replicas every read goes to `primary`. */
  constructor(
    private readonly primary: Knex,
    private readonly replicas: Replica[] = [],
    private readonly retryMs = DEFAULT_RETRY_MS,
    private readonly log?: Logger,
  ) {
    for (const replica of replicas) this.probe(replica, 0);
  }

  /** Runs `read` on the next replica that is up, or on the primary; again on the primary if that replica fails. */
  async read<T>(read: (db: Knex) => Promise<T>): Promise<T> {
    const replica = this.next();
    if (!replica) return read(this.primary);
    try {
      return await read(replica.db);
    } catch (err) {
      if (!this.failedOver(replica, err)) throw err;
      return read(this.primary);
    }
  }

  /**
   * The rows `open` streams from the next replica that is up, or from the primary; from the primary
   * if that replica fails before its first row. (A replica lost in the middle of a long list cuts
   * that answer, as the primary would.)
   */
  stream<T>(open: (db: Knex) => AsyncIterable<T>): AsyncIterable<T> {
    const replica = this.next();
    // the primary's rows as they come, without a generator in between
    return replica ? this.streamFrom(replica, open) : open(this.primary);
  }

  private async *streamFrom<T>(replica: Replica, open: (db: Knex) => AsyncIterable<T>): AsyncGenerator<T> {
    const rows = open(replica.db)[Symbol.asyncIterator]();
    let first: IteratorResult<T>;
    try {
      first = await rows.next();
    } catch (err) {
      if (!this.failedOver(replica, err)) throw err;
      return yield* open(this.primary);
    }
    try {
      if (first.done) return;
      yield first.value;
      yield* { [Symbol.asyncIterator]: () => rows };
    } finally {
      // the consumer stopped early: the cursor and its connection go back
      await rows.return?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const replica of this.replicas) clearTimeout(replica.probe);
    await Promise.all(this.replicas.map((replica) => replica.db.destroy()));
  }

  /** Each replica and whether reads go to it now (for /metrics). */
  health(): { name: string; up: boolean }[] {
    return this.replicas.map(({ name, up }) => ({ name, up }));
  }

  private next(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[this.turn++ % this.replicas.length]!;
      if (replica.up) return replica;
    }
    return undefined;
  }

  /** Whether the primary should answer instead; a replica that cannot be reached is marked down first. */
  private failedOver(replica: Replica, err: unknown): boolean {
    if (isRecoveryConflict(err)) return true;
    if (!isConnectionFailure(err)) return false;
    if (replica.up) {
      replica.up = false;
      this.log?.warn({ replica: replica.name, err, retryInMs: this.retryMs }, 'read replica down: reading from the primary');
      this.probe(replica, this.retryMs);
    }
    return true;
  }

  private probe(replica: Replica, delayMs: number): void {
    replica.probe = setTimeout(() => {
      replica.db.raw('select 1').then(
        () => {
          if (this.closed) return;
          replica.up = true;
          this.log?.info({ replica: replica.name }, 'read replica in use');
        },
        (err: unknown) => {
          if (this.closed) return;
          // said once at start: a replica that has never answered may be misconfigured
          if (delayMs === 0) this.log?.warn({ replica: replica.name, err, retryInMs: this.retryMs }, 'read replica not answering: reading from the primary');
          this.probe(replica, this.retryMs);
        },
      );
    }, delayMs);
    replica.probe.unref();
  }
}

/** The replicas of `config` (none: every read on `primary`), each with a pool of its own under the same bounds. */
export function readRouting(primary: Knex, config: ServerConfig, log: Logger): ReadRouting {
  const replicas = (config.replicaUrls ?? []).map((url): Replica => ({ db: connect({ ...config, databaseUrl: url }), name: redactUrl(url), up: false }));
  return new ReadRouting(primary, replicas, config.replicaRetryMs, log);
}
