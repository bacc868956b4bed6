/**
 * Row triggers generated from the declarations (the change capture, the link capture, the trash),
 * kept in step on every migrate: each trigger's arguments are also its comment (no parsing of
 * tgargs), a trigger whose arguments differ from those wanted is replaced, one no longer wanted is
 * dropped, and a table not created yet (makemigrations compares before generating) is left for later.
 */
import type { Knex } from 'knex';
import { q } from './sql.js';

export interface DeclaredTrigger {
  name: string;
  /** `after insert or update or delete`, `before delete` … */
  when: string;
  /** The trigger function, called with the arguments. */
  call: string;
  /** Table → the function's arguments, each as text. */
  wanted: ReadonlyMap<string, readonly string[]>;
}

/** A SQL string literal. */
export const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export async function keepTriggerInStep(db: Knex, t: DeclaredTrigger): Promise<void> {
  const { rows } = (await db.raw(
    `select c.relname as "table", tr.tgname is not null as present, obj_description(tr.oid, 'pg_trigger') as args
       from pg_class c left join pg_trigger tr on tr.tgrelid = c.oid and tr.tgname = ?
      where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`,
    [t.name],
  )) as { rows: { table: string; present: boolean; args: string | null }[] };
  for (const { table, present, args } of rows) {
    const want = t.wanted.get(table)?.map(literal).join(', ');
    if (want === undefined) {
      if (present) await db.raw(`drop trigger ${t.name} on ${q(table)}`);
      continue;
    }
    if (present && args === want) continue;
    await db.raw(`create or replace trigger ${t.name} ${t.when} on ${q(table)} for each row execute function ${t.call}(${want})`);
    await db.raw(`comment on trigger ${t.name} on ${q(table)} is ${literal(want)}`);
  }
}
