/**
 * The engine's own scheduled jobs, named `engine.<name>`: tables that only grow unless something
 * removes what has served its time. Each is a plain schedule (declare/schedules.ts) and runs in one
 * transaction like any other.
 *
 * Retention of other engine data plugs in here as one more entry: the history work's trash purge
 * and audit retention become `{ name: 'trash', cron, description, run: ({ trx }) => purgeTrash(trx) }`
 * and `{ name: 'audit_retention', … }`, their functions taking the run's transaction.
 */
import type { ScheduleDeclaration } from '../declare/schedules.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';

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
];
