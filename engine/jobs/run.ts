/**
 * One run of a scheduled job: its work in one transaction that the resources' write path joins
 * (Principal.transaction), as the oldest active superuser, as `manage seed` writes; then
 * its outcome in `scheduled_jobs`, which `/api/jobs` serves. A run that throws is recorded as
 * failed and rethrown, so the queue retries it.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { loadPrincipal } from '../auth/users.js';
import { emitEvent } from '../webhooks/emit.js';
import { ResourceService } from '../crud/service.js';
import { createAjv } from '../crud/validator.js';
import type { ScheduleContext, ScheduledWrites } from '../declare/schedules.js';
import type { Registry } from '../registry/registry.js';
import { nextRun, type ScheduledJob } from './catalogue.js';
import type { JOB_OUTCOMES } from './resource.js';

export const JOBS_TABLE = 'scheduled_jobs';

/** Errors are kept this long in `last_error`. */
const ERROR_CHARS = 1000;

export type JobOutcome = (typeof JOB_OUTCOMES)[number];

/** Runs jobs of `registry` on `db`; the resources' services are made once, when a job first writes to them. */
export class JobRuns {
  private readonly services = new Map<string, ResourceService>();
  private readonly ajv = createAjv();

  constructor(
    private readonly db: Knex,
    private readonly registry: Registry,
  ) {}

  private service(key: string): ResourceService {
    let service = this.services.get(key);
    if (!service) this.services.set(key, (service = new ResourceService(this.registry.get(key), this.db, this.ajv, this.registry)));
    return service;
  }

  /**
   * Runs `job` now (its `attempt`-th try) and records the outcome; throws what the run threw.
   * `ended` hears the outcome before the table does, so whoever reads the outcome there finds it
   * counted too (`/metrics`' job runs).
   */
  async run(job: ScheduledJob, attempt = 1, ended?: (outcome: JobOutcome) => void): Promise<void> {
    await this.db(JOBS_TABLE).where({ name: job.name }).update({ last_started: this.db.fn.now(), last_finished: null, attempt });
    const failure = await this.db.transaction(async (trx) => job.declaration.run(await this.context(trx))).then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    ended?.(failure ? 'failed' : 'succeeded');
    if (!failure) return this.finished(job, 'succeeded', null);
    await this.finished(job, 'failed', String((failure.err as Error)?.message ?? failure.err).slice(0, ERROR_CHARS));
    throw failure.err;
  }

  private async finished(job: ScheduledJob, outcome: JobOutcome, error: string | null): Promise<void> {
    await this.db(JOBS_TABLE)
      .where({ name: job.name })
      .update({ last_finished: this.db.fn.now(), outcome, last_error: error, next_run: nextRun(job.declaration.cron) });
  }

  private async context(trx: Knex.Transaction): Promise<ScheduleContext> {
    const superuser = await loadPrincipal(trx, (qb) => void qb.where('u.is_superuser', true).orderBy('u.id'));
    if (!superuser) throw new Error('Scheduled jobs write as a superuser, and there is no active one: run createsuperuser.');
    // no request made its writes: the audit trail names no user for them
    const principal: Principal = { ...superuser, unattributed: true, transaction: trx };
    return {
      trx,
      today: new Date().toISOString().slice(0, 10),
      records: (key) => this.writes(key, principal),
      emit: (key, event, ids) => this.emit(trx, key, event, ids),
    };
  }

  private writes(key: string, principal: Principal): ScheduledWrites {
    const service = this.service(key);
    return {
      create: async (body) => JSON.parse(await service.create(principal, body)) as Record<string, unknown>,
      update: async (id, body) => JSON.parse(await service.update(principal, id, body, true)) as Record<string, unknown>,
      destroy: (id) => service.destroy(principal, id),
    };
  }

  private async emit(trx: Knex.Transaction, key: string, event: string, ids: readonly number[]): Promise<void> {
    const resource = this.registry.get(key);
    if (!(resource.declaration.events ?? []).includes(event)) throw new Error(`Resource "${key}" declares no event "${event}".`);
    await emitEvent(trx, resource, event, ids);
  }
}
