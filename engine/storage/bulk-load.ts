/**
 * Large loads (the seed, the bench's data), as PostgreSQL's "Populating a Database" advises: the
 * tables' plain indexes and foreign keys are dropped before the rows go in and made again after,
 * inside the load's transaction. Building an index once over a million rows costs a fraction of
 * keeping it up to date row by row (the trigram GIN indexes most of all), and a foreign key added
 * back checks every row in one join instead of one lookup per row. Primary keys and unique
 * constraints stay, so duplicates are refused as the rows land. A failed load rolls back with its
 * indexes and keys as they were.
 */
import type { Knex } from 'knex';
import { q } from './sql.js';

/** Memory for one index build or key check: GIN builds are much quicker when their entries fit. */
const BUILD_MEMORY = '128MB';

interface Dropped {
  table: string;
  name: string;
  definition: string;
}

export async function withoutIndexes<T>(trx: Knex.Transaction, tables: readonly string[], load: () => Promise<T>): Promise<T> {
  const found = async (sql: string) => ((await trx.raw(sql, [[...tables]])) as { rows: Dropped[] }).rows;
  const indexes = await found(
    `select i.tablename as table, i.indexname as name, i.indexdef as definition from pg_indexes i
     where i.schemaname = current_schema() and i.tablename = any(?::text[])
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = current_schema()::regnamespace)
     order by 1, 2`,
  );
  const keys = await found(
    `select c.conrelid::regclass::text as table, c.conname as name, pg_get_constraintdef(c.oid) as definition from pg_constraint c
     where c.contype = 'f' and c.connamespace = current_schema()::regnamespace and c.conrelid::regclass::text = any(?::text[])
     order by 1, 2`,
  );
  for (const k of keys) await trx.raw(`alter table ${q(k.table)} drop constraint ${q(k.name)}`);
  if (indexes.length) await trx.raw(`drop index ${indexes.map((i) => q(i.name)).join(', ')}`);
  const loaded = await load();
  await trx.raw(`set local maintenance_work_mem = '${BUILD_MEMORY}'`);
  for (const { definition } of indexes) await trx.raw(definition);
  for (const k of keys) await trx.raw(`alter table ${q(k.table)} add constraint ${q(k.name)} ${k.definition}`);
  return loaded;
}
