/**
 * Row triggers generated from the declarations (the change capture, the link capture, the trash),
 * kept in step on every migrate: each trigger's arguments are also its comment (no parsing of
 * tgargs), a trigger whose arguments or function differ from those wanted is replaced, one no
 * longer wanted is dropped, and a table not created yet (makemigrations compares before generating)
 * is left for later. A trigger may call a function of its own per table, its body generated from
 * the declaration too: it is replaced when its text differs, and dropped when no table wants it.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { q } from './sql.js';

export interface DeclaredTrigger {
  name: string;
  /** `after insert or update or delete`, `before delete` … */
  when: string;
  /** The trigger function, called with the arguments (unless the table has one of its own in `functions`). */
  call: string;
  /** Table → the function's arguments, each as text. */
  wanted: ReadonlyMap<string, readonly string[]>;
  /** Table → the body of the table's own trigger function (named by `ownFunction`), given the table's columns; none: `call`. */
  functions?: (table: string, columns: ReadonlySet<string>) => string | undefined;
}

/** A SQL string literal. */
export const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** `<trigger>__<table>`, or, past PostgreSQL's 63 bytes, the table's name cut and a hash of it. */
export function ownFunction(trigger: string, table: string): string {
  const name = `${trigger}__${table}`;
  return name.length <= 63 ? name : `${name.slice(0, 54)}_${createHash('sha1').update(table).digest('hex').slice(0, 8)}`;
}

/** The functions of `prefix` as they are stored: name → body. */
async function storedFunctions(db: Knex, prefix: string): Promise<Map<string, string>> {
  const { rows } = (await db.raw(`select proname as name, prosrc as body from pg_proc where pronamespace = current_schema()::regnamespace and left(proname, ?) = ?`, [prefix.length, prefix])) as {
    rows: { name: string; body: string }[];
  };
  return new Map(rows.map((r) => [r.name, r.body]));
}

export async function keepTriggerInStep(db: Knex, t: DeclaredTrigger): Promise<void> {
  const { rows } = (await db.raw(
    `select c.relname as "table", tr.tgname is not null as present, obj_description(tr.oid, 'pg_trigger') as args, p.proname as call,
            array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
       from pg_class c left join pg_trigger tr on tr.tgrelid = c.oid and tr.tgname = ? left join pg_proc p on p.oid = tr.tgfoid
      where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`,
    [t.name],
  )) as { rows: { table: string; present: boolean; args: string | null; call: string | null; columns: string[] }[] };
  const prefix = `${t.name}__`;
  const stored = t.functions ? await storedFunctions(db, prefix) : new Map<string, string>();
  const kept = new Set<string>();
  for (const { table, present, args, call, columns } of rows) {
    const want = t.wanted.get(table)?.map(literal).join(', ');
    if (want === undefined) {
      if (present) await db.raw(`drop trigger ${t.name} on ${q(table)}`);
      continue;
    }
    const body = t.functions?.(table, new Set(columns));
    const wantCall = body === undefined ? t.call : ownFunction(t.name, table);
    if (body !== undefined) {
      kept.add(wantCall);
      if (stored.get(wantCall) !== body) await db.raw(`create or replace function ${q(wantCall)}() returns trigger language plpgsql as $bms$${body}$bms$`);
    }
    if (present && args === want && call === wantCall) continue;
    await db.raw(`create or replace trigger ${t.name} ${t.when} on ${q(table)} for each row execute function ${q(wantCall)}(${want})`);
    await db.raw(`comment on trigger ${t.name} on ${q(table)} is ${literal(want)}`);
  }
  for (const name of stored.keys()) if (!kept.has(name)) await db.raw(`drop function ${q(name)}()`);
}
