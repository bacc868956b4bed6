/**
 * `manage run-job NAME`: runs one scheduled job now, in this process, as the queue would (one
 * transaction, its outcome in `/api/jobs`), whether or not an instance runs jobs; not retried.
 */
import { readDatabaseConfig, unbounded } from '../config.js';
import { scheduledJobs } from '../jobs/catalogue.js';
import { JobRuns } from '../jobs/run.js';
import { recordJobs } from '../jobs/runner.js';
import type { Registry } from '../registry/registry.js';
import { openDatabase } from '../storage/connect.js';
import { migrateLatest } from '../storage/migrate.js';
import { CommandError, UsageError } from './errors.js';

export async function runJobNow(args: readonly string[], registry: Registry): Promise<number> {
  const jobs = scheduledJobs(registry);
  const [name, ...more] = args;
  if (name === undefined || more.length) throw new UsageError('run-job takes one job name.');
  const job = jobs.find((j) => j.name === name);
  if (!job) throw new UsageError(`No job "${name}"; the jobs are ${jobs.map((j) => j.name).join(', ')}.`);
  const db = await openDatabase(unbounded(readDatabaseConfig()));
  try {
    await migrateLatest(db);
    await recordJobs(db, jobs);
    await new JobRuns(db, registry).run(job).catch((err: unknown) => {
      throw new CommandError(`job "${name}" failed: ${err instanceof Error ? err.message : String(err)}`);
    });
    process.stdout.write(`Job "${name}" succeeded.\n`);
    return 0;
  } finally {
    await db.destroy();
  }
}
