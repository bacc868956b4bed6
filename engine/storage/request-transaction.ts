/**
 * A transaction a request's work joins: an idempotent POST stores its key in the same transaction
 * as the records it creates, so a crash leaves both or neither. Services read their connection
 * through `joined`, so every write path (creates, batches) takes part without being told; their own
 * `transaction` calls become savepoints inside it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

const current = new AsyncLocalStorage<Knex.Transaction>();

/** Runs `work` with `trx` as the transaction that `joined` answers. */
export const joinTransaction = <T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T> => current.run(trx, work);

/** The transaction the current request's work joins, if any. */
export const joinedTransaction = (): Knex.Transaction | undefined => current.getStore();

/** `db`, or the transaction the current request's work joins. */
export const joined = (db: Knex): Knex => current.getStore() ?? db;
