/** Table locks held from outside the service, so that its statements on the table wait. */
import type { Knex } from 'knex';

/** Holds an exclusive lock on `table` until the returned release: every statement reading it waits. */
export async function lockTable(db: Knex, table: string): Promise<() => Promise<void>> {
  const trx = await db.transaction();
  await trx.raw(`lock table ?? in access exclusive mode`, [table]);
  return async () => void (await trx.rollback());
}
