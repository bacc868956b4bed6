/**
 * What `/metrics` reports (METRICS=true), on a registry of this service's own: HTTP requests by route
 * pattern, the database pool and statements, replicas, the principal cache, the webhook outbox, the
 * job queue and Node's process metrics. Counts kept elsewhere (the cache's hits, the dispatcher's
 * outcomes) are read when scraped, so nothing outside this file depends on prom-client. Gauges of
 * the whole database (outbox, queue) are the same in every worker: a cluster reports one worker's
 * value instead of their sum.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { TallyCounter, TallyHistogram } from './tally.js';
import type { Knex } from 'knex';
import type { PrincipalCache } from '../auth/principal-cache.js';
import type { ReadRouting } from '../storage/replicas.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';

/** Seconds: from a cached detail (~1 ms) to a request at the statement timeout (30 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const STATEMENT_KINDS = ['select', 'insert', 'update', 'delete', 'with', 'other'] as const;

/** A statement's first word, when it is one of STATEMENT_KINDS; else `other`. */
function statementKind(sql: string): (typeof STATEMENT_KINDS)[number] {
  const word = /^\s*([a-z]+)/i.exec(sql.slice(0, 24))?.[1]?.toLowerCase();
  return STATEMENT_KINDS.find((kind) => kind === word) ?? 'other';
}

/** What the service's parts report; each is optional, so an app without them still has its HTTP metrics. */
export interface MetricSources {
  db?: Knex;
  reads?: ReadRouting;
  principals?: PrincipalCache;
  dispatcher?: Dispatcher;
  /** Jobs waiting in the queue and runs by job and outcome (engine/jobs). */
  jobs?: { waiting(): Promise<number>; runs(): readonly { job: string; outcome: string; count: number }[] };
}

interface Emitter {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** The tarn pool behind Knex: what it holds, lends and is asked for (its events: acquireRequest, acquireSuccess, acquireFail, with an id). */
interface Pool extends Emitter {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** `counter` reset to the current totals of `counts` (kept elsewhere since start). */
function setTotals<L extends string>(counter: Counter<L>, counts: readonly { labels: Record<L, string>; count: number }[]): void {
  counter.reset();
  for (const { labels, count } of counts) counter.inc(labels, count);
}

export class Metrics {
  readonly registry = new Registry();
  // the hot paths' metrics: counted as plain numbers, read when scraped (tally.ts)
  readonly requests = new TallyCounter<'route' | 'method' | 'status'>('http_requests_total', 'HTTP requests answered, by route pattern, method and status.', this.registry);
  readonly duration = new TallyHistogram<'route' | 'method'>(
    'http_request_duration_seconds',
    'Time from a request to the last byte of its answer, by route pattern and method.',
    this.registry,
    LATENCY_BUCKETS,
  );
  readonly bytesOut = new TallyCounter<'route'>('http_response_bytes_total', 'Bytes sent in answers (headers included), by route pattern.', this.registry);
  /** Requests being answered now (the gauge reads it when scraped). */
  inFlight = 0;
  readonly statements = new TallyHistogram<'kind'>(
    'db_statement_duration_seconds',
    'Database statements sent through the pool, by kind (the first word: select, insert, update, delete, with, other).',
    this.registry,
    LATENCY_BUCKETS,
  );
  readonly acquire = new TallyHistogram<never>('db_pool_acquire_seconds', 'Time a query waited for a pooled connection.', this.registry, LATENCY_BUCKETS);

  /** Removes what `watchDatabase` added. */
  private readonly listeners: (() => void)[] = [];

  constructor(sources: MetricSources = {}) {
    collectDefaultMetrics({ register: this.registry });
    const inFlight = () => this.inFlight;
    new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests being answered now.',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    if (sources.db) this.watchDatabase(sources.db);
    const { reads, principals, dispatcher, jobs, db } = sources;
    if (reads) {
      new Gauge({
        name: 'db_replica_up',
        help: 'Whether reads go to the replica (1) or it is marked down (0).',
        labelNames: ['replica'] as const,
        registers: [this.registry],
        collect() {
          for (const r of reads.health()) this.set({ replica: r.name }, r.up ? 1 : 0);
        },
      });
    }
    if (principals) {
      new Counter({
        name: 'principal_cache_lookups_total',
        help: 'Token lookups in the principal cache, by outcome (hit: no query).',
        labelNames: ['outcome'] as const,
        registers: [this.registry],
        collect() {
          setTotals(this, [
            { labels: { outcome: 'hit' }, count: principals.hits },
            { labels: { outcome: 'miss' }, count: principals.misses },
          ]);
        },
      });
    }
    if (dispatcher) {
      new Counter({
        name: 'webhook_delivery_attempts_total',
        help: "Webhook delivery attempts by this instance's dispatcher, by outcome (delivered, retrying, failed: the last attempt failed).",
        labelNames: ['outcome'] as const,
        registers: [this.registry],
        collect() {
          setTotals(this, Object.entries(dispatcher.outcomes).map(([outcome, count]) => ({ labels: { outcome }, count })));
        },
      });
    }
    if (db) {
      new Gauge({
        name: 'webhook_outbox_pending',
        help: 'Webhook deliveries waiting to be delivered (the whole database).',
        aggregator: 'max',
        registers: [this.registry],
        async collect() {
          const row = (await db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }).first()) as { n: string | number };
          this.set(Number(row.n));
        },
      });
    }
    if (jobs) {
      new Gauge({
        name: 'jobs_queued',
        help: 'Scheduled job runs waiting in the queue or for a retry (the whole database).',
        aggregator: 'max',
        registers: [this.registry],
        async collect() {
          this.set(await jobs.waiting());
        },
      });
      new Counter({
        name: 'job_runs_total',
        help: 'Scheduled job runs by this instance, by job and outcome (succeeded, failed).',
        labelNames: ['job', 'outcome'] as const,
        registers: [this.registry],
        collect() {
          setTotals(this, jobs.runs().map(({ job, outcome, count }) => ({ labels: { job, outcome }, count })));
        },
      });
    }
  }

  /** Stops listening to the database's events (the database may outlive this). */
  close(): void {
    for (const stop of this.listeners) stop();
  }

  /** The pool's gauges, the time a query waits for a connection, and each statement's duration by kind. */
  private watchDatabase(db: Knex): void {
    const pool = (db.client as { pool?: Pool }).pool;
    if (pool) {
      const waits = new Map<number, number>();
      const waited = this.acquire.of('', {});
      this.listen(pool, 'acquireRequest', (id: number) => waits.set(id, performance.now()));
      this.listen(pool, 'acquireSuccess', (id: number) => {
        const began = waits.get(id);
        if (began !== undefined) this.acquire.observe(waited, (performance.now() - began) / 1000);
        waits.delete(id);
      });
      this.listen(pool, 'acquireFail', (id: number) => waits.delete(id));
      new Gauge({
        name: 'db_pool_connections',
        help: 'Pooled database connections by state (used, idle), and the most the pool opens (max).',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          this.set({ state: 'used' }, pool.numUsed());
          this.set({ state: 'idle' }, pool.numFree());
          this.set({ state: 'max' }, pool.max);
        },
      });
      new Gauge({
        name: 'db_pool_waiting',
        help: 'Queries waiting for a pooled connection.',
        registers: [this.registry],
        collect() {
          this.set(pool.numPendingAcquires());
        },
      });
    }
    const kinds = new Map(STATEMENT_KINDS.map((kind) => [kind, this.statements.of(kind, { kind })]));
    const running = new Map<string, { began: number; kind: (typeof STATEMENT_KINDS)[number] }>();
    this.listen(db, 'query', (q: { __knexQueryUid: string; sql: string }) => {
      running.set(q.__knexQueryUid, { began: performance.now(), kind: statementKind(q.sql) });
    });
    const done = (_: unknown, q: { __knexQueryUid: string }) => {
      const r = running.get(q.__knexQueryUid);
      if (r) this.statements.observe(kinds.get(r.kind)!, (performance.now() - r.began) / 1000);
      running.delete(q.__knexQueryUid);
    };
    this.listen(db, 'query-response', done);
    this.listen(db, 'query-error', done);
  }

  private listen<A extends unknown[]>(emitter: Emitter, event: string, listener: (...args: A) => void): void {
    emitter.on(event, listener as (...args: unknown[]) => void);
    this.listeners.push(() => emitter.removeListener(event, listener as (...args: unknown[]) => void));
  }
}
