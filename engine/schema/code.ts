/**
 * The TypeScript statements a generated migration is made of: `knex.schema.createTable` with
 * Knex's column builders for a new table (constraints get Knex's default names), plain SQL for
 * every change to an existing one. Generated files name every column, type and constraint
 * themselves: they import no helper whose later change would change what an old migration does.
 */
import { MANAGED, TRIGRAM, ident, indexName, literal, valueSql, type Check, type Column, type Default, type ForeignKey, type Index, type Table } from './model.js';

/** A JavaScript string literal. */
export const js = (text: string): string => `'${text.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;

/** `await knex.raw(`…`);` with the SQL in a template literal (no quotes to escape). */
export const raw = (sql: string): string => `await knex.raw(\`${sql.replace(/[\\`]/g, '\\$&').replace(/\$\{/g, '\\${')}\`);`;

const list = (names: readonly string[]): string => `[${names.map(js).join(', ')}]`;

/** Knex's builder for a column type, by its SQL spelling; anything else is `specificType`. */
const BUILDERS: [RegExp, (name: string, m: RegExpMatchArray) => string][] = [
  [/^varchar\((\d+)\)$/, (n, m) => `t.string(${n}, ${m[1]})`],
  [/^numeric\((\d+),(\d+)\)$/, (n, m) => `t.decimal(${n}, ${m[1]}, ${m[2]})`],
  [/^timestamptz\((\d+)\)$/, (n, m) => `t.timestamp(${n}, { useTz: true, precision: ${m[1]} })`],
  [/^(integer|text|boolean|date|jsonb|uuid)$/, (n, m) => `t.${m[1]}(${n})`],
];

function builder(c: Column, check: Check | undefined): string {
  const name = js(c.name);
  if (c.default?.sql === 'serial') return `t.increments(${name})`;
  if (check && !check.definition && c.type === 'text') return `t.enu(${name}, ${list(check.values)})`;
  for (const [pattern, build] of BUILDERS) {
    const m = c.type.match(pattern);
    if (m) return build(name, m);
  }
  return `t.specificType(${name}, ${js(c.type)})`;
}

function defaultCode(d: Default): string {
  if (d.value !== undefined) return typeof d.value === 'string' ? js(d.value) : String(d.value);
  return d.sql === 'CURRENT_TIMESTAMP' ? 'knex.fn.now()' : `knex.raw(${js(d.sql)})`;
}

export const checkSql = (c: Check): string => c.definition ?? `check (${ident(c.column)} in (${c.values.map(literal).join(', ')}))`;

export const foreignKeySql = (fk: ForeignKey): string =>
  `foreign key (${ident(fk.column)}) references ${ident(fk.table)} ("id") on delete ${fk.onDelete.toLowerCase()}`;

export const defaultSql = (d: Default): string => (d.value !== undefined ? valueSql(d.value) : d.sql);

/** `create [unique] index` of `index` on `table`: a b-tree, or GIN with pg_trgm's operators on each column. */
export function createIndexSql(table: string, index: Index, name: string, unique = false): string {
  const columns = index.columns.map((c) => (index.trigram ? `${ident(c)} ${TRIGRAM.opclass}` : ident(c))).join(', ');
  return `create ${unique ? 'unique ' : ''}index ${ident(name)} on ${ident(table)}${index.trigram ? ` using ${TRIGRAM.method}` : ''} (${columns})`;
}

/** Column definition for `add column`: type, nullability, default. */
export function columnSql(c: Column): string {
  const parts = [ident(c.name), c.type];
  if (!c.nullable) parts.push('not null');
  if (c.default) parts.push(`default ${defaultSql(c.default)}`);
  return parts.join(' ');
}

/**
 * Creates `table` with everything it has, except foreign keys to the tables in `later` (created
 * afterwards, so their keys are added then), and marks it managed.
 */
export function createTable(table: Table, later: ReadonlySet<string> = new Set()): string[] {
  const lines = [`await knex.schema.createTable(${js(table.name)}, (t) => {`];
  const body: string[] = [];
  const serial = table.columns.some((c) => c.default?.sql === 'serial');
  const inlineChecks = new Set<Check>();
  for (const c of table.columns) {
    const check = table.checks.find((k) => k.column === c.name);
    let line = builder(c, check);
    if (line.startsWith('t.enu(')) inlineChecks.add(check!);
    if (!c.nullable && !line.startsWith('t.increments(')) line += '.notNullable()';
    if (c.default && c.default.sql !== 'serial') line += `.defaultTo(${defaultCode(c.default)})`;
    body.push(`${line};`);
  }
  if (!serial && table.primaryKey.length) body.push(`t.primary(${list(table.primaryKey)});`);
  for (const u of table.uniques) body.push(`t.unique(${list(u.columns)});`);
  for (const fk of table.foreignKeys) {
    if (!later.has(fk.table)) body.push(`t.foreign(${js(fk.column)}).references(${js(`${fk.table}.id`)}).onDelete(${js(fk.onDelete)});`);
  }
  for (const k of table.checks) if (!inlineChecks.has(k)) body.push(`t.check(${js(checkSql(k).replace(/^check /i, ''))});`);
  for (const x of table.indexes) if (!x.trigram) body.push(`t.index(${list(x.columns)});`);
  lines.push(...body.map((l) => `  ${l}`), '});');
  // Knex's builder has no operator classes
  for (const x of table.indexes) if (x.trigram) lines.push(raw(createIndexSql(table.name, x, indexName(table.name, x))));
  lines.push(raw(`comment on table ${ident(table.name)} is ${literal(MANAGED)}`));
  return lines;
}
