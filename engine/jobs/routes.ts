/**
 * `/api/jobs`: the scheduled jobs, read-only: name, schedule (cron, UTC), what it does, its last
 * run (when it began and ended, the outcome, the error of a failed one and which attempt it was)
 * and its next run. Superusers and holders of `job.view_job` read it.
 */
import type { Knex } from 'knex';
import { TableList } from '../crud/table-list.js';
import { isoTimestamp } from '../fields/values.js';
import type { TableRoutes } from '../http/table-routes.js';
import { JOBS_TABLE } from './run.js';

export const JOBS_PATH = '/api/jobs';
export const JOB_OUTCOMES = ['succeeded', 'failed'] as const;

const JOB_JSON = `json_build_object('id', e.id, 'name', e.name, 'schedule', e.schedule, 'description', e.description,
  'last_run', ${isoTimestamp('e.last_started')}, 'last_finished', ${isoTimestamp('e.last_finished')}, 'outcome', e.outcome,
  'last_error', e.last_error, 'attempt', e.attempt, 'next_run', ${isoTimestamp('e.next_run')})`;

export function jobRoutes(db: Knex): TableRoutes {
  const list = new TableList(db, JOBS_TABLE, JOB_JSON, [
    { param: 'name', column: 'name', type: { type: 'string', maxLength: 200, description: '' }, op: 'exact' },
    { param: 'outcome', column: 'outcome', type: { type: 'enum', values: JOB_OUTCOMES, description: '' }, op: 'exact' },
  ]);
  return { permissions: { view: 'job.view_job' }, list, visible: () => [] };
}
