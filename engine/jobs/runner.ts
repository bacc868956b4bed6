/**
 * Scheduled jobs on pg-boss, a queue kept in the service's own database (schema `pgboss`), on the
 * server or the embedded PGlite alike (boss-db.ts). Every instance with JOBS on works the queues;
 * pg-boss enqueues each cron slot once whatever the number of instances, and an instance takes a
 * job with `FOR UPDATE SKIP LOCKED`, so each run happens once. A run that throws is retried after
 * its delay, doubled each time; a job survives a restart because it is a row until it completes.
 * Every instance, JOBS on or off, keeps the job list in `scheduled_jobs` in step with the declarations.
 */
import PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { JobSettings } from '../config.js';
import type { Logger } from '../log.js';
import type { Registry } from '../registry/registry.js';
import { bossDb } from './boss-db.js';
import { DEFAULT_RETRY, nextRun, scheduledJobs, type ScheduledJob } from './catalogue.js';
import { JOBS_TABLE, JobRuns } from './run.js';

/** How long a stopping instance waits for the runs under way. */
const STOP_WAIT_MS = 10_000;

/** Makes `scheduled_jobs` list exactly the declared jobs, with their schedule and next run. */
export async function recordJobs(db: Knex, jobs: readonly ScheduledJob[]): Promise<void> {
  const rows = jobs.map((job) => ({ name: job.name, schedule: job.declaration.cron, description: job.declaration.description, next_run: nextRun(job.declaration.cron) }));
  await db.transaction(async (trx) => {
    await trx(JOBS_TABLE).whereNotIn('name', rows.map((r) => r.name)).delete();
    await trx(JOBS_TABLE).insert(rows).onConflict('name').merge(['schedule', 'description', 'next_run']);
  });
}

/**
 * Runs `step` again when PostgreSQL chose it as a deadlock's victim: instances starting together
 * create the same queues (pg-boss's DDL, each in its own transaction), and one of two may be refused.
 */
async function untilNoDeadlock<T>(step: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await step();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || i >= tries) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * i + Math.random() * 100));
    }
  }
}

export class JobRunner {
  readonly jobs: readonly ScheduledJob[];
  private readonly runs: JobRuns;
  private boss: PgBoss | undefined;
  /** Runs by this instance, by job and outcome (for /metrics). */
  private readonly outcomes = new Map<string, { job: string; outcome: string; count: number }>();

  constructor(
    private readonly db: Knex,
    registry: Registry,
    private readonly settings: JobSettings,
    private readonly log: Logger,
  ) {
    this.jobs = scheduledJobs(registry);
    this.runs = new JobRuns(db, registry);
  }

  /** Records the job list; with JOBS on, starts the queue and works every job's. */
  async start(): Promise<void> {
    await recordJobs(this.db, this.jobs);
    if (!this.settings.run) return;
    const boss = new PgBoss({
      db: bossDb(this.db),
      cronMonitorIntervalSeconds: this.settings.cronCheckSeconds,
      // the queue of due cron slots, polled as the jobs' own (pg-boss takes 1 s at least)
      cronWorkerIntervalSeconds: Math.max(1, this.settings.pollSeconds),
    });
    boss.on('error', (err) => this.log.warn({ err }, 'job queue error'));
    await boss.start();
    this.boss = boss;
    const declared = new Set(this.jobs.map((job) => job.name));
    for (const { name } of await boss.getSchedules()) if (!declared.has(name)) await boss.unschedule(name);
    for (const job of this.jobs) {
      const retry = job.declaration.retry ?? DEFAULT_RETRY;
      const queue = { name: job.name, retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: true };
      await untilNoDeadlock(() => boss.createQueue(job.name, queue));
      await untilNoDeadlock(() => boss.updateQueue(job.name, queue));
      await untilNoDeadlock(() => boss.schedule(job.name, job.declaration.cron, {}, { tz: 'UTC' }));
      await boss.work(job.name, { pollingIntervalSeconds: this.settings.pollSeconds, includeMetadata: true }, async ([taken]) =>
        this.runCounted(job, (taken?.retryCount ?? 0) + 1),
      );
    }
    this.log.info({ jobs: this.jobs.length }, 'running scheduled jobs');
  }

  private async runCounted(job: ScheduledJob, attempt: number): Promise<void> {
    try {
      await this.runs.run(job, attempt, (outcome) => this.count(job, outcome));
    } catch (err) {
      this.log.warn({ job: job.name, attempt, err }, 'scheduled job failed');
      throw err;
    }
  }

  private count(job: ScheduledJob, outcome: string): void {
    const key = `${job.name} ${outcome}`;
    const entry = this.outcomes.get(key) ?? { job: job.name, outcome, count: 0 };
    entry.count++;
    this.outcomes.set(key, entry);
  }

  /** Runs by this instance since start, by job and outcome. */
  counts(): readonly { job: string; outcome: string; count: number }[] {
    return [...this.outcomes.values()];
  }

  /** Job runs queued or waiting for a retry, in the whole database. */
  async waiting(): Promise<number> {
    const { rows } = (await this.db.raw(
      `select case when to_regclass('pgboss.job') is null then 0
                   else (select count(*) from pgboss.job where state in ('created', 'retry') and name = any(?::text[])) end as n`,
      [this.jobs.map((job) => job.name)],
    )) as { rows: { n: string | number }[] };
    return Number(rows[0]!.n);
  }

  /** Stops taking jobs and waits for the runs under way. */
  async stop(): Promise<void> {
    await this.boss?.stop({ graceful: true, wait: true, timeout: STOP_WAIT_MS });
  }
}
