/**
 * Scheduled jobs declared beside their resource (`schedules`) or by the engine (its chores,
 * engine/jobs/chores.ts). A run is written like a hook: it gets one transaction, and writes records
 * through the resources' own write path (validation, rules, hooks, state log, audit and webhooks
 * included), as the oldest active superuser. It commits or rolls back whole; a run that throws is
 * retried with backoff (engine/jobs/runner.ts).
 */
import type { Knex } from 'knex';
import type { ServedRecord } from './hooks.js';

/** The write path of one resource, inside the run's transaction. */
export interface ScheduledWrites {
  create(body: Readonly<Record<string, unknown>>): Promise<ServedRecord>;
  update(id: number, body: Readonly<Record<string, unknown>>): Promise<ServedRecord>;
  destroy(id: number): Promise<void>;
}

export interface ScheduleContext {
  /** The run's transaction: read what to act on here. */
  readonly trx: Knex.Transaction;
  /** Today's date (`YYYY-MM-DD`, UTC) when the run began. */
  readonly today: string;
  /** Creates, changes and deletes records of resource `key` (`dms/document`) through its write path. */
  readonly records: (key: string) => ScheduledWrites;
  /**
   * Sends the event `<module>.<resource>.<event>` (declared in the resource's `events`) about the
   * records `ids` of resource `key` to the subscriptions that name it, with the records as they are now.
   */
  readonly emit: (key: string, event: string, ids: readonly number[]) => Promise<void>;
}

export interface ScheduleDeclaration {
  /** Unique within the resource (or among the engine's chores); the job is named `<module>.<resource>.<name>`. */
  readonly name: string;
  /** Five-field cron expression, in UTC (`0 1 * * *`: daily at 01:00). */
  readonly cron: string;
  readonly description: string;
  /** How often a failed run is tried again (default 3) and the first wait in seconds (default 60; doubled each time). */
  readonly retry?: { readonly limit: number; readonly delaySeconds: number };
  readonly run: (ctx: ScheduleContext) => Promise<void>;
}
