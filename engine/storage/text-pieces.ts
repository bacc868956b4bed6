/**
 * A statement whose first column is a text (records' JSON; null: none), read as pieces: the first
 * row's text alone (a list's head, see listRecords), then runs of the later texts joined by commas,
 * about PIECE_BYTES each. On a server the texts are taken from the wire as they arrive (one round
 * trip, no row objects; the socket pauses while the pieces wait for the reader); PGlite's rows come
 * in one answer (embeddedPieces).
 */
import type { Knex } from 'knex';
import pg from 'pg';
import type { Readable } from 'node:stream';
import type { Fragment } from './sql.js';
import { BoundedQuery, CUSTOM_PLANS, holds, nativeStatement, noteOutgrown, onServer, outgrown, plannedWithValues, reportedToKnex, statementName } from './statements.js';
import { PROBE_ROWS } from './serialise.js';
import { statementTrace, type StatementTrace } from '../tracing/hooks.js';

/** Texts are handed on in pieces of about this size. */
const PIECE_BYTES = 64 * 1024;
/** Pieces waiting for the reader above this size pause the connection's socket, so PostgreSQL waits. */
const PAUSE_BYTES = 1024 * 1024;

/** `first` is shown the first row's columns after the first, when there is a row. */
export type FirstRow = (rest: readonly (string | null)[]) => void;

export interface TextPieces extends AsyncIterable<string> {
  [Symbol.asyncIterator](): AsyncIterator<string, void>;
}

/**
 * Collects the rows' texts into pieces: the first row's alone, as soon as it comes (a list's head),
 * the later ones in runs; `first` is shown the first row's other columns.
 */
class PieceBuilder {
  private parts: string[] = [];
  private bytes = 0;
  private rows = 0;

  constructor(private readonly first: FirstRow | undefined) {}

  /** A row's columns, its text first; the piece it completes, if any. */
  row([text, ...rest]: readonly (string | null)[]): string | undefined {
    if (this.rows++ === 0) {
      this.first?.(rest);
      return text ?? undefined;
    }
    if (text === null || text === undefined) return undefined;
    this.parts.push(text);
    this.bytes += text.length + 1;
    return this.bytes >= PIECE_BYTES ? this.take() : undefined;
  }

  /** What is left, if anything. */
  take(): string | undefined {
    if (this.parts.length === 0) return undefined;
    const piece = this.parts.join(',');
    this.parts = [];
    this.bytes = 0;
    return piece;
  }
}

interface DataRow {
  fields: (string | null)[];
}

/** The messages of pg's connection that run a bound portal. */
interface PortalWire {
  bind(config: { statement: string; values: unknown[] }): void;
  execute(config: { rows: number }): void;
  flush(): void;
  sync(): void;
}

/**
 * The statement as a pg Query that keeps the first column's text of each DataRow message: pg's
 * Query sends Parse, Bind and Describe, then the Execute messages below, at once, and calls these handlers.
 */
class TextRowsQuery extends BoundedQuery {
  private readonly builder: PieceBuilder;
  private readonly ready: string[] = [];
  private readyBytes = 0;
  private waiting: ((result: IteratorResult<string, void>) => void) | undefined;
  private failed: ((err: unknown) => void) | undefined;
  private ended = false;
  private error: unknown;
  /** Statements run ahead of this one in its transaction whose answers are not its rows. */
  private ahead = 0;
  /** Called once the statement has ended (or failed) and the connection is free. */
  onSettled: (error: unknown) => void = () => undefined;

  constructor(
    text: string,
    name: string | undefined,
    values: unknown[],
    /** The connection's socket, paused while the pieces wait. */
    private socket: Readable | undefined,
    first: FirstRow | undefined,
    /** Named, yet planned with its values each run (see CUSTOM_PLANS). */
    private readonly customPlans = false,
    /** Answers one row (a list's probe): nothing to send ahead of the rest. */
    private readonly oneRow = false,
  ) {
    // made from the text, then named: pg copies a config object through its property descriptors
    super(text, values);
    const self = this as { name?: string; queryMode?: string };
    self.name = name;
    // extended even without values: the first row is asked for alone (see _getRows)
    self.queryMode = 'extended';
    this.builder = new PieceBuilder(first);
  }

  /** pg's Parse, Bind and Describe, after CUSTOM_PLANS when a named statement must be planned with its values: all in one round trip. */
  prepare(connection: PortalWire): void {
    if (this.customPlans && (this as { name?: string }).name !== undefined) {
      connection.bind({ statement: CUSTOM_PLANS.name!, values: [] });
      connection.execute({ rows: 0 });
      this.ahead++;
    }
    (pg.Query.prototype as unknown as { prepare(c: PortalWire): void }).prepare.call(this, connection);
  }

  /**
   * Runs the portal as pg would (its name for this step), but asks for the first row alone and a
   * Flush before the rest: PostgreSQL holds up to 8 kB of output until more follows, so the end of
   * the first row would otherwise wait for the second, however long that takes to compute. (An
   * Execute with a row limit keeps the statement from parallel workers.) A pg that renamed this step
   * runs the portal in one Execute, as it always did. A statement of one row runs in one Execute
   * too: its row is its end, and the split would cost PostgreSQL a flush and a resumed portal, and
   * the process a second read, for nothing.
   */
  _getRows(connection: PortalWire): void {
    if (this.oneRow) {
      connection.execute({ rows: 0 });
      connection.sync();
      return;
    }
    connection.execute({ rows: 1 });
    connection.flush();
    connection.execute({ rows: 0 });
    connection.sync();
  }

  /** After the first row: the rest was asked for already. */
  handlePortalSuspended(): void {}

  handleRowDescription(): void {}

  handleDataRow({ fields }: DataRow): void {
    if (this.ahead) return;
    const piece = this.builder.row(fields);
    if (piece !== undefined) this.deliver(piece);
  }

  handleCommandComplete(): void {
    if (this.ahead) this.ahead--;
  }

  handleError(err: unknown): void {
    this.error = err;
    this.settle();
  }

  handleReadyForQuery(): void {
    const rest = this.builder.take();
    if (rest !== undefined) this.deliver(rest);
    this.settle();
  }

  private settle(): void {
    if (this.ended) return;
    this.ended = true;
    // the last rows may have paused the socket: a connection handed back paused would never read its next answer
    this.socket?.resume();
    this.socket = undefined;
    if (this.waiting) this.next().then(this.waiting, this.failed);
    this.waiting = this.failed = undefined;
    this.onSettled(this.error);
  }

  private deliver(piece: string): void {
    this.ready.push(piece);
    this.readyBytes += piece.length;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failed = undefined;
      resolve(this.shift());
    } else if (this.readyBytes >= PAUSE_BYTES) this.socket?.pause();
  }

  private shift(): IteratorResult<string, void> {
    const piece = this.ready.shift()!;
    this.readyBytes -= piece.length;
    if (this.readyBytes < PAUSE_BYTES) this.socket?.resume();
    return { value: piece, done: false };
  }

  /** The next piece; the error, once the pieces before it have been read. */
  next(): Promise<IteratorResult<string, void>> {
    if (this.ready.length) return Promise.resolve(this.shift());
    if (this.ended) return this.error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(this.error);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
    });
  }

  /** Whether PostgreSQL is still sending rows. */
  get running(): boolean {
    return !this.ended;
  }
}

/** Why a connection was closed on purpose: the pool drops it without a warning. */
export const LEFT_UNREAD = 'closed: a list was left unread';

type PooledClient = pg.Client & { __knex__disposed?: unknown };

/**
 * A TextPieces whose iterations run `pieces(...args)`. Every generator here is a module-level
 * function, never one written inside the function that hands it out: each generator function
 * created per call brought a prototype of its own, and V8 kept what each such generator reached
 * (the request's list, its rows) alive through scavenges into the old generation, about 4 kB a
 * list (docs/performance.md, "Generators made per call"). test/generator-retention.test.ts holds
 * this file to it.
 */
function piecesOf<A extends unknown[]>(pieces: (...args: A) => AsyncGenerator<string, void>, ...args: A): TextPieces {
  return { [Symbol.asyncIterator]: () => pieces(...args) };
}

/**
 * The statement's pieces read straight from a pooled pg connection, which goes back to the pool as
 * soon as the statement ends. `probe`: a list's probe (see probedPieces), one row, planned with its
 * values even when named and its text binds no pattern.
 */
function wirePieces(db: Knex, query: Fragment, first: FirstRow | undefined, probe: boolean): TextPieces {
  const { sql, bindings } = nativeStatement(db, query);
  // the pg instrumentation ends a span only on a callback or promise: the statement's own, under the request's
  return piecesOf(wireRows, db, query, sql, bindings, first, probe, statementTrace(sql));
}

async function* wireRows(
  db: Knex,
  query: Fragment,
  sql: string,
  bindings: readonly unknown[],
  first: FirstRow | undefined,
  probe: boolean,
  traced: StatementTrace | undefined,
): AsyncGenerator<string, void> {
  const client = (await db.client.acquireConnection()) as PooledClient;
  const planned = probe || plannedWithValues(query.sql);
  const wire = client.connection as unknown as { parsedStatements: Record<string, string>; stream: Readable };
  // a connection opened without connect() (a test's own) holds no CUSTOM_PLANS: unnamed, planned with its values anyway
  const name = !planned || holds(wire, CUSTOM_PLANS) ? statementName(query.sql, query.bindings, planned) : undefined;
  const rows = new TextRowsQuery(sql, name, [...bindings], wire.stream, first, planned, probe);
  const ended = traced?.begin();
  const released = new Promise<void>((resolve) => {
    const reported = reportedToKnex(db, client, sql, bindings);
    rows.onSettled = (error) => (ended?.(error), reported(error), resolve());
  }).then(() => db.client.releaseConnection(client));
  void client.query(rows);
  try {
    for (let piece = await rows.next(); !piece.done; piece = await rows.next()) yield piece.value;
  } finally {
    // a reader that left early: the rest of a long list is not read through, the connection is
    // closed instead (PostgreSQL stops at once) and the pool opens a new one when it needs it
    if (rows.running) {
      // set after Knex's own 'end' listener, which marks the connection broken and says so
      client.once('end', () => (client.__knex__disposed = LEFT_UNREAD));
      void client.end().catch(() => undefined);
    }
    await released;
  }
}

/**
 * The statement's pieces from its rows read at once (PGlite): knex-pglite's row stream holds them all
 * anyway (PGlite answers a statement whole), and a plain query gives Knex's listeners its end too.
 */
async function* embeddedRows(db: Knex, query: Fragment, first: FirstRow | undefined): AsyncGenerator<string, void> {
  const builder = new PieceBuilder(first);
  const { rows } = (await db.raw(query.sql, query.bindings as Knex.RawBinding[])) as { rows: Record<string, string | null>[] };
  for (const row of rows) {
    const piece = builder.row(Object.values(row));
    if (piece !== undefined) yield piece;
  }
  const rest = builder.take();
  if (rest !== undefined) yield rest;
}

/**
 * The pieces of `query`, read as the consumer asks for them; `first` sees the first row's columns
 * after the first. `probe`: a list's probe, one row planned with its values on every run (on
 * PGlite, whose statements run unnamed, every statement is).
 */
export function textPieces(db: Knex, query: Fragment, first?: FirstRow, probe = false): TextPieces {
  return onServer(db) ? wirePieces(db, query, first, probe) : piecesOf(embeddedRows, db, query, first);
}

/**
 * A list's pieces when it may hold more than PROBE_ROWS records. Its `probe` (headProbe: its first
 * PROBE_ROWS records in one row, the number of rows read, up to one more, in its last column) is
 * one select list where the `whole` list's statement has three (see listRecords), so a short list,
 * planned on every run, costs PostgreSQL about what a single select would. A list that goes on is
 * read again by its `whole` statement, from a snapshot of its own, and the probe's records dropped:
 * every answer comes from one statement. `first` is shown the columns of the statement answered.
 *
 * A probe always runs under custom plans: a generic plan of its LIMIT, blind to how rare its
 * filters' values are, may walk the table in key order (EXPLAIN on 100,000 issues: 40 ms against 2
 * for one tracker's rejected ones). A list shape (the probe's text) whose last run outgrew its probe
 * runs `whole` at once, and is probed again once a whole run fits in its first head.
 */
export function probedPieces(db: Knex, probe: Fragment, whole: () => Fragment, first?: FirstRow): TextPieces {
  return piecesOf(outgrown(probe.sql) ? wholeRows : probedRows, db, probe, whole, first);
}

/** A list whose shape outgrew its probe last time: the whole statement at once. */
async function* wholeRows(db: Knex, probe: Fragment, whole: () => Fragment, first: FirstRow | undefined): AsyncGenerator<string, void> {
  let pieces = 0;
  for await (const piece of textPieces(db, whole(), first)) {
    pieces++;
    yield piece;
  }
  // the first piece is the first head (PROBE_ROWS records at most); any later one is more
  if (pieces <= 1) noteOutgrown(probe.sql, false);
}

/** The probe first; the whole statement only when the list goes on past it. */
async function* probedRows(db: Knex, probe: Fragment, whole: () => Fragment, first: FirstRow | undefined): AsyncGenerator<string, void> {
  let more = false;
  let head: readonly (string | null)[] = [];
  const pieces: string[] = [];
  const probed = (columns: readonly (string | null)[]) => {
    more = Number(columns.at(-1)) > PROBE_ROWS;
    head = columns.slice(0, -1);
  };
  for await (const piece of textPieces(db, probe, probed, true)) pieces.push(piece);
  noteOutgrown(probe.sql, more);
  if (more) return yield* textPieces(db, whole(), first);
  first?.(head);
  yield* pieces;
}
