/**
 * `--export-sql FILE`: the seeded rows as plain PostgreSQL SQL, for another service to load into
 * tables of its own with this service's table and column names (docs/performance.md, "Comparing
 * with another service"). One INSERT per 1,000 rows, every column but generated ones, in the
 * seed's order so references load after what they name; then each table's id sequence moved past
 * its rows, so the peer's creates get new ids. The values are PostgreSQL's own text (quote_nullable).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import type { Knex } from 'knex';
import { q } from '../engine/storage/sql.js';

const ROWS_PER_INSERT = 1000;

async function names(db: Knex, sql: string, table: string): Promise<string[]> {
  return ((await db.raw(sql, [table])) as { rows: { attname: string }[] }).rows.map((r) => r.attname);
}

const columnsOf = (db: Knex, table: string) =>
  names(db, `select attname from pg_attribute where attrelid = ?::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`, table);

const primaryKeyOf = (db: Knex, table: string) =>
  names(db, `select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = ?::regclass and i.indisprimary order by a.attnum`, table);

/** Writes the rows of `tables` to `file`; answers how many rows each had. */
export async function exportSql(db: Knex, file: string, tables: readonly string[], issues: number): Promise<Record<string, number>> {
  const out = fs.createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const columns = new Map<string, string[]>();
  for (const table of tables) columns.set(table, await columnsOf(db, table));
  await write(
    `-- The bench's seeded rows (npm run bench -- --issues ${issues} --export-sql), PostgreSQL SQL.\n` +
      `-- Load: psql -v ON_ERROR_STOP=1 -d <database> -f <this file>, into tables with these names and columns:\n` +
      [...columns].map(([table, names]) => `--   ${table} (${names.join(', ')})\n`).join('') +
      'begin;\n',
  );
  const counts: Record<string, number> = {};
  for (const [table, names] of columns) {
    const head = `insert into ${q(table)} (${names.map(q).join(', ')}) values\n`;
    const tuple = `format('(%s)', concat_ws(', ', ${names.map((n) => `quote_nullable(${q(n)})`).join(', ')})) as v`;
    let batch: string[] = [];
    let count = 0;
    const flush = async () => {
      if (batch.length) await write(`${head}${batch.join(',\n')};\n`);
      batch = [];
    };
    const key = (await primaryKeyOf(db, table)).map(q).join(', ');
    const stream = db.raw(`select ${tuple} from ${q(table)} order by ${key}`).stream() as AsyncIterable<{ v: string }>;
    for await (const { v } of stream) {
      batch.push(v);
      count++;
      if (batch.length === ROWS_PER_INSERT) await flush();
    }
    await flush();
    counts[table] = count;
    if (names.includes('id')) await write(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${q(table)}));\n`);
  }
  await write('commit;\n');
  out.end();
  await once(out, 'finish');
  return counts;
}
