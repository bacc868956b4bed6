/**
 * Named prepared statements. PostgreSQL parses and plans a named statement once per connection and
 * then only binds values, so a read that runs thousands of times a second skips the parser and, once
 * PostgreSQL settles on a generic plan, the planner. A statement's name follows from its text alone
 * (a hash): one text, one name, in every connection and instance.
 *
 * Each server connection keeps at most `DATABASE_PREPARED_STATEMENTS` of them; naming one more
 * closes the least recently used first (a protocol Close ahead of the new Parse, in the same
 * round trip), so the plans a connection holds in server memory are bounded however many list
 * shapes clients ask for.
 *
 * Texts that bind a substring pattern (`ilike ?`: search and substring filters) are planned with
 * their values on every run: a generic plan cannot know whether a pattern has the three characters
 * a trigram index needs, nor how rare it is, and PostgreSQL compares plans by estimates, which for
 * patterns are guesses (test/list-indexes.test.ts). A list of them is still named, so it is parsed
 * once, and runs with `plan_cache_mode` set to `force_custom_plan` for its own transaction: the
 * connection's CUSTOM_PLANS statement, bound and executed just before it in the same round trip (a
 * list's probe runs so too)
 * (engine/storage/text-pieces.ts). Elsewhere (counts, exports) they run unnamed. Texts whose Knex
 * array bindings spread into one placeholder per element always run unnamed (their text differs
 * with the array's length anyway).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import { PATTERN_MATCH, type Fragment } from './sql.js';

/** Texts whose facts are remembered (found again otherwise): a cache, so any number of texts is fine. */
const REMEMBERED = 5000;

/** What follows from a statement's text alone, found once per text: a write's is 3 kB, scanned and hashed on every run otherwise. */
interface TextFacts {
  /** Whether its plans must be made with its values each time (a pattern's). */
  planned: boolean;
  name?: string;
  /** Its form with `$n` placeholders, when its values are plain (nativeStatement). */
  native?: string;
  /** A list probe's (text-pieces.ts probedPieces): whether the list outgrew it when it last ran. */
  outgrown?: boolean;
}

const texts = new Map<string, TextFacts>();

function factsOf(text: string): TextFacts {
  let facts = texts.get(text);
  if (facts === undefined) {
    facts = { planned: text.includes(PATTERN_MATCH) };
    if (texts.size >= REMEMBERED) texts.delete(texts.keys().next().value!);
    texts.set(text, facts);
  }
  return facts;
}

/** Whether a text's plans must be made with its values each time (a pattern's). */
export const plannedWithValues = (sql: string): boolean => factsOf(sql).planned;

/** Whether the list whose probe this is outgrew it when it last ran (undefined: not known). */
export const outgrown = (probe: string): boolean | undefined => factsOf(probe).outgrown;

/** Notes whether the list whose probe this is outgrew it this time. */
export const noteOutgrown = (probe: string, outgrew: boolean): void => void (factsOf(probe).outgrown = outgrew);

/**
 * The name a statement runs under; undefined: unnamed, planned with its values each time.
 * `customPlans`: the caller runs it under CUSTOM_PLANS, so a pattern's text may be named too.
 */
export function statementName(sql: string, bindings: readonly unknown[], customPlans = false): string | undefined {
  const facts = factsOf(sql);
  if ((facts.planned && !customPlans) || bindings.some(Array.isArray)) return undefined;
  return (facts.name ??= `bms_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`);
}

/**
 * A named statement every connection that takes named statements prepares when it opens, outside
 * their bound (never closed): run just before a statement in the same transaction (the messages up
 * to a Sync are one), that statement's plan is made
 * with its values. Protocol-level, so PgBouncer's prepared-statement tracking carries it over to
 * whichever server connection runs it.
 */
export const CUSTOM_PLANS: pg.QueryConfig = { name: 'bms_custom_plans', text: `select set_config('plan_cache_mode', 'force_custom_plan', true)` };

/**
 * One allocation of 4 MiB, freed at once, in each new session. glibc's malloc hands the top of a
 * backend's heap back to the system whenever more than 128 kB of it is free (M_TRIM_THRESHOLD) and
 * faults the pages in again on the next statement: a probed search gave back and faulted about
 * 160 kB on every run (39 minor page faults; 1.4 ms of the backend's CPU per search against 0.9
 * without), a filtered list of 100 records 400 kB. Freeing a chunk that was mapped for its size
 * (above M_MMAP_THRESHOLD) raises both thresholds for the process (mallopt(3), "dynamic mmap
 * threshold"): from then on the session keeps up to 8 MiB of free heap (at most that much more
 * resident per connection) instead of returning and faulting it per statement. Elsewhere (musl) it
 * is a 4 MiB string built once.
 */
export const KEEP_HEAP = `select length(repeat(' ', 4194304))`;

/**
 * Whether `connection` (a pg client's) holds `statement`, prepared when it opened: a statement that
 * must run after it is named only then (a connection opened otherwise, a test's say, runs it unnamed).
 */
export const holds = (connection: { parsedStatements: Record<string, string> }, statement: pg.QueryConfig): boolean => connection.parsedStatements[statement.name!] !== undefined;

/** Whether `db` runs on a PostgreSQL server (through pg) rather than on the embedded PGlite. */
export const onServer = (db: Knex | Knex.Transaction): boolean => db.client.config.client === 'pg';

/** Values Knex would turn into SQL of their own (a query, a raw fragment, an array spread into placeholders) or refuse (undefined). */
const plainValues = (values: readonly unknown[]): boolean =>
  values.every((v) => v !== undefined && (v === null || typeof v !== 'object' || (!Array.isArray(v) && typeof (v as { toSQL?: unknown }).toSQL !== 'function')));

/**
 * `fragment` as pg takes it: `$n` placeholders and their values. Plain values keep their text's
 * native form, kept per text; others pass Knex's rewriting, which runs regular expressions over the
 * whole text each time.
 */
export function nativeStatement(db: Knex | Knex.Transaction, fragment: Fragment): { sql: string; bindings: readonly unknown[] } {
  const values = fragment.bindings;
  if (!plainValues(values)) return db.raw(fragment.sql, values as Knex.RawBinding[]).toSQL().toNative();
  const facts = factsOf(fragment.sql);
  const sql = (facts.native ??= db.raw(fragment.sql, values as Knex.RawBinding[]).toSQL().toNative().sql);
  return { sql, bindings: values };
}

/** Statements sent outside Knex's runner so far: their Knex query uids. */
let sentOutside = 0;

/**
 * Reports a statement sent on one of Knex's pooled connections outside its runner to Knex's
 * listeners (metrics and the tests listen), as Knex reports its own: `query` now, and the returned
 * function's `query-response` or `query-error` when it settles.
 */
export function reportedToKnex(db: Knex | Knex.Transaction, client: pg.Client, sql: string, bindings: readonly unknown[]): (error: unknown, result?: unknown) => void {
  const event = { sql, bindings, method: 'raw', __knexUid: (client as { __knexUid?: string }).__knexUid, __knexQueryUid: `outside-${++sentOutside}` };
  db.client.emit('query', event);
  return (error, result) => void (error === undefined ? db.client.emit('query-response', result, event) : db.client.emit('query-error', error, event));
}

/**
 * A named statement sent straight through a pooled pg connection (the transaction's, in one), its
 * `$n` text kept per text (nativeStatement). The connection comes from and goes back to Knex's pool.
 */
async function sendNamed(db: Knex | Knex.Transaction, name: string, fragment: Fragment): Promise<pg.QueryResult> {
  const { sql: text, bindings } = nativeStatement(db, fragment);
  const values = bindings as unknown[];
  const client = (await db.client.acquireConnection()) as pg.Client;
  const settled = reportedToKnex(db, client, text, values);
  try {
    const result = await new Promise<pg.QueryResult>((resolve, reject) => {
      // named once made: pg copies a config object through its property descriptors, slowly; a
      // BoundedQuery counts the name against the connection's bound as it is sent
      const query = new BoundedQuery(text, values, (err, res) => (err ? reject(err) : resolve(res as unknown as pg.QueryResult)));
      (query as { name?: string }).name = name;
      client.query(query);
    });
    settled(undefined, result);
    return result;
  } catch (err) {
    settled(err);
    throw err;
  } finally {
    await db.client.releaseConnection(client);
  }
}

/** `fragment` run as a statement, named per `statementName`; on a server a named one goes straight through pg. */
export function prepared(db: Knex | Knex.Transaction, fragment: Fragment): PromiseLike<unknown> {
  const name = statementName(fragment.sql, fragment.bindings);
  if (name && onServer(db) && plainValues(fragment.bindings)) return sendNamed(db, name, fragment);
  const query = db.raw(fragment.sql, fragment.bindings as Knex.RawBinding[]);
  return name ? query.options({ name }) : query;
}

/** The parts of pg's connection a named statement's bookkeeping touches. */
interface StatementWire {
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
  close(message: { type: 'S'; name: string }): void;
}

/**
 * Per connection: the names it holds, each with the tick of its last use, and how many it may hold.
 * A use overwrites its tick in place: deleting and re-adding the name on every statement (an
 * ordered Set as the LRU) rebuilt the Set's table in V8's old generation again and again, dead
 * tables whose references keep young objects alive through scavenges (see drain.ts).
 */
const held = new WeakMap<object, { names: Map<string, number>; tick: number; most: number }>();

/** The least recently used of `names`: a scan, only when a new name goes beyond the bound. */
function leastRecent(names: Map<string, number>): string {
  let oldest: [string, number] | undefined;
  for (const entry of names) if (!oldest || entry[1] < oldest[1]) oldest = entry;
  return oldest![0];
}

/**
 * Notes that `name` runs next on `wire`, closing the least recently used statement beyond the
 * connection's bound; false when the connection takes no named statements. Called as the statement
 * is submitted, so the Close travels just before its Parse.
 */
function useStatement(wire: StatementWire, name: string): boolean {
  const entry = held.get(wire);
  if (!entry) return true;
  const { names, most } = entry;
  if (most === 0) return false;
  const known = names.has(name);
  names.set(name, ++entry.tick);
  if (known) return true;
  while (names.size > most) {
    const oldest = leastRecent(names);
    names.delete(oldest);
    wire.close({ type: 'S', name: oldest });
    delete wire.parsedStatements[oldest];
    if (wire.submittedNamedStatements) delete wire.submittedNamedStatements[oldest];
  }
  return true;
}

type QueryCallback = (err: Error | undefined, result: pg.ResultBuilder) => void;

/** A pg query whose named statement is counted against its connection's bound as it is sent. */
export class BoundedQuery extends pg.Query {
  constructor(config: string | pg.QueryConfig, values?: unknown[], callback?: QueryCallback) {
    super(config, values, callback);
    const submit = this.submit.bind(this);
    this.submit = (connection) => {
      const self = this as { name?: string };
      if (self.name && !useStatement(connection as unknown as StatementWire, self.name)) self.name = undefined;
      return submit(connection);
    };
  }
}


/**
 * Bounds `client`'s named statements at `most` (0: it runs them unnamed, for a transaction pool
 * that does not track prepared statements, say): its named queries (Knex's, from `prepared`) are
 * sent as BoundedQuery.
 */
export function boundStatements(client: pg.Client, most: number): void {
  held.set((client as unknown as { connection: object }).connection, { names: new Map(), tick: 0, most });
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => unknown;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const named = config !== null && typeof config === 'object' && typeof (config as { name?: unknown }).name === 'string';
    const done = (typeof values === 'function' ? values : callback) as QueryCallback | undefined;
    // Knex passes a callback; without one, pg's own promise is kept
    if (!named || !done || typeof (config as { submit?: unknown }).submit === 'function') return query(config, values, callback);
    return query(new BoundedQuery(config as pg.QueryConfig, typeof values === 'function' ? undefined : (values as unknown[] | undefined), done));
  };
}
