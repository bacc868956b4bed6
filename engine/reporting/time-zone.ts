/**
 * TZ is checked against Node's zone names when read; PostgreSQL, which buckets the times, has a
 * list of its own, so a zone it does not know would fail every bucketed aggregate: the start
 * refuses it instead.
 */
import type { Knex } from 'knex';
import { StartupError } from '../startup-error.js';

export async function checkTimeZone(db: Knex, timeZone: string): Promise<void> {
  const { rows } = (await db.raw('select 1 from pg_timezone_names where name = ?', [timeZone])) as { rows: unknown[] };
  if (rows.length === 0) throw new StartupError(`Invalid setting TZ="${timeZone}": PostgreSQL does not know this time zone (see pg_timezone_names).`);
}
