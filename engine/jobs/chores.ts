/**
 * The engine's own scheduled jobs, named `engine.<name>`: tables that only grow unless something
 * removes what has served its time. Each is a plain schedule (declare/schedules.ts) and runs in one
 * transaction like any other.
 * The trash purge and the audit retention read their settings when they run (engine/history/).
 */
import type { ScheduleDeclaration } from '../declare/schedules.js';
import { readRetentionConfig } from '../config.js';
import { pruneAudit, purgeTrash } from '../history/retention.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { IMPORT_JOBS_KEPT_DAYS, purgeFinishedImports } from '../exchange/import-jobs.js';

/** Delivered and given-up webhook deliveries are kept this long for `/api/webhook/delivery`, then removed. */
export const DELIVERIES_KEPT_DAYS = 30;

export const ENGINE_CHORES: readonly ScheduleDeclaration[] = [
  {
    name: 'sessions',
    cron: '15 3 * * *',
    description: 'Removes expired sign-in sessions.',
    run: async ({ trx }) => {
      await trx('sessions').where('expires', '<', trx.fn.now()).delete();
    },
  },
  {
    name: 'idempotency_keys',
    cron: '20 3 * * *',
    description: 'Removes Idempotency-Key records older than 24 hours.',
    run: ({ trx }) => purgeIdempotencyKeys(trx),
  },
  {
    name: 'webhook_deliveries',
    cron: '25 3 * * *',
    description: `Removes webhook deliveries delivered or given up more than ${DELIVERIES_KEPT_DAYS} days ago.`,
    run: async ({ trx }) => {
      await trx('webhook_deliveries')
        .whereIn('status', ['delivered', 'failed'])
        .whereRaw(`coalesce(delivered_at, at) < now() - ? * interval '1 day'`, [DELIVERIES_KEPT_DAYS])
        .delete();
    },
  },
  {
    name: 'import_jobs',
    cron: '27 3 * * *',
    description: `Removes background imports finished more than ${IMPORT_JOBS_KEPT_DAYS} days ago.`,
    run: async ({ trx }) => {
      await purgeFinishedImports(trx);
    },
  },
  {
    name: 'trash',
    cron: '30 3 * * *',
    description: 'Purges records deleted more than TRASH_RETENTION_DAYS (default 30) days ago from the trash.',
    run: async ({ trx }) => {
      await purgeTrash(trx, readRetentionConfig().trashDays);
    },
  },
  {
    name: 'audit_retention',
    cron: '35 3 * * *',
    description: 'Removes audit entries older than AUDIT_RETENTION_DAYS, when set (unset: entries are kept).',
    run: async ({ trx }) => {
      const days = readRetentionConfig().auditDays;
      if (days !== undefined) await pruneAudit(trx, days);
    },
  },
];
