/**
 * `/api/jobs`: the scheduled jobs, read-only: name, schedule (cron, UTC), what it does, its last run
 * (when it began and ended, the outcome, the error of a failed one and which attempt it was) and its
 * next run. Superusers and holders of its view permission read it; run.ts and runner.ts write the rows.
 */
import { defineEngineTable } from '../declare/engine-table.js';
import { field } from '../declare/fields.js';
import { JOBS_TABLE } from './run.js';

export const JOB_OUTCOMES = ['succeeded', 'failed'] as const;

const moment = (description: string) => field.datetime({ nullable: true, description });

export const scheduledJobs = () =>
  defineEngineTable({
    module: 'job',
    name: 'job',
    path: '/api/jobs',
    table: JOBS_TABLE,
    title: 'Scheduled job',
    description: 'A scheduled job and its last run (docs/operations.md).',
    schemaName: 'ScheduledJob',
    fields: {
      name: field.string({ maxLength: 200, nullable: false, lookups: ['exact'], description: "`<module>.<resource>.<name>`, or `engine.<name>` for the engine's chores; what `manage run-job` takes." }),
      schedule: field.string({ maxLength: 100, nullable: false, description: 'When it runs: a five-field cron expression, in UTC.' }),
      description: field.text({ nullable: false, description: 'What it does.' }),
      last_run: moment('When its last run began; null if it never ran.'),
      last_finished: moment('When its last run ended; null while it runs or if it never ran.'),
      outcome: field.enum({ values: JOB_OUTCOMES, nullable: true, lookups: ['exact'], description: 'How its last run ended (a failed run is retried with backoff).' }),
      last_error: field.text({ description: 'Why its last run failed.' }),
      attempt: field.integer({ minimum: 1, maximum: 1000, nullable: true, description: 'Which try its last run was (1: the first).' }),
      next_run: moment('When its schedule next fires.'),
    },
    columns: { last_run: 'last_started' },
    ordering: ['name'],
    page: { size: 100, max: 1000 },
  });
