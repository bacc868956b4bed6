/**
 * Retention: trash entries older than TRASH_RETENTION_DAYS are purged, audit entries older than
 * AUDIT_RETENTION_DAYS (when set) pruned. Plain functions, for a scheduled job or the
 * `manage prune-history` command. Each batch is a short transaction of its own that takes row locks
 * on old rows only (`skip locked`: never waits on a restore under way), so writes, which append new
 * rows, are never blocked; the audit trail's guard lets the prune delete (`bms.audit_prune`).
 */
import type { Knex } from 'knex';
import { rowsOf } from '../crud/rows.js';

export const RETENTION_BATCH = 1000;

/** Deletes rows of `table` whose `column` is more than `days` old, `batch` at a time; answers how many. */
async function deleteOlder(db: Knex, table: 'trash' | 'audit_entries', column: string, days: number, batch: number, first?: string): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.transaction(async (trx) => {
      if (first) await trx.raw(first);
      const result = await trx.raw(
        `delete from ${table} where id in (select id from ${table} where ${column} < now() - make_interval(days => ?) order by id limit ? for update skip locked) returning 1`,
        [days, batch],
      );
      return rowsOf(result).length;
    });
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** Purges trash entries deleted more than `days` ago. */
export const purgeTrash = (db: Knex, days: number, batch = RETENTION_BATCH): Promise<number> => deleteOlder(db, 'trash', 'deleted_at', days, batch);

/** Prunes audit entries written more than `days` ago. */
export const pruneAudit = (db: Knex, days: number, batch = RETENTION_BATCH): Promise<number> =>
  deleteOlder(db, 'audit_entries', 'at', days, batch, `select set_config('bms.audit_prune', 'on', true)`);
