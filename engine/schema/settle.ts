/**
 * Gives every constant default its comparable key: its text under the column's type, evaluated by
 * the database itself, so a declared `'0.00'` and a catalogue's `0` on numeric(18,2) compare
 * equal, and `'{}'` and `'{}'::text[]` too, without reimplementing PostgreSQL's casts.
 */
import type { Knex } from 'knex';
import type { Schema } from './model.js';

export async function settleDefaults(db: Knex, schema: Schema, tables: Iterable<string>): Promise<void> {
  for (const name of tables) {
    for (const c of schema.get(name)?.columns ?? []) {
      const d = c.default;
      if (!d || d.key !== undefined) continue;
      const { rows } = (await db.raw(`select ((${d.sql})::${c.type})::text as v`)) as { rows: { v: string | null }[] };
      const v = rows[0]!.v;
      // `default null` is no default
      c.default = v === null ? null : { ...d, key: `= ${v}` };
    }
  }
}
