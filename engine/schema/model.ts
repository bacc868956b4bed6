/**
 * A database schema as makemigrations compares it: the tables the declarations want and the
 * tables a migrated database has, in one shape, so the difference is a plain comparison.
 * Types are PostgreSQL's short spellings (`varchar(255)`, `numeric(18,4)`, `timestamptz(3)`).
 */

/** Table comment marking a table makemigrations owns; a marked table no longer declared is dropped. */
export const MANAGED = 'bms:managed';

export type DeleteAction = 'RESTRICT' | 'CASCADE' | 'SET NULL' | 'NO ACTION';

/**
 * A column default as SQL: a literal (`'draft'`, `5`, `true`), an expression read from the
 * catalogue (`'draft'::text`), or one evaluated per row (`CURRENT_TIMESTAMP`, `gen_random_uuid()`,
 * and `serial` for an id's sequence). `value` is the declared value, for `defaultTo`. `key`
 * compares two defaults: a constant's text under the column's type, as the database reads it (so
 * `0` and `'0.00'::numeric` agree on numeric(18,2)); see settle.ts.
 */
export interface Default {
  sql: string;
  value?: string | number | boolean;
  key?: string;
}

/** The defaults evaluated per row, keyed by their SQL (never evaluated to compare). */
export const SERIAL: Default = { sql: 'serial', key: 'serial' };
export const NOW: Default = { sql: 'CURRENT_TIMESTAMP', key: 'CURRENT_TIMESTAMP' };
export const RANDOM_UUID: Default = { sql: 'gen_random_uuid()', key: 'gen_random_uuid()' };

export interface Column {
  name: string;
  type: string;
  nullable: boolean;
  default: Default | null;
}

export interface ForeignKey {
  column: string;
  table: string;
  onDelete: DeleteAction;
  /** Constraint name, as read from the catalogue. */
  name?: string;
}

/** A CHECK that a text column holds one of `values` (enums and states). */
export interface Check {
  column: string;
  values: readonly string[];
  name?: string;
  /** A check of another shape, read from the catalogue: its definition (never declared, so dropped). */
  definition?: string;
}

export interface Index {
  columns: readonly string[];
  name?: string;
  /**
   * GIN over trigrams (`using gin (col gin_trgm_ops)`, pg_trgm), which serves `ilike '%…%'`;
   * absent: a b-tree with the columns' default operators (equality, ranges, order).
   */
  trigram?: boolean;
}

/** What a trigram index is made of, as the catalogue names it. */
export const TRIGRAM = { method: 'gin', opclass: 'gin_trgm_ops', extension: 'pg_trgm' } as const;

export interface Unique {
  columns: readonly string[];
  name?: string;
  /** Read from the catalogue: a constraint (`drop constraint`) rather than a bare unique index. */
  constraint?: boolean;
}

export interface Table {
  name: string;
  columns: Column[];
  primaryKey: readonly string[];
  foreignKeys: ForeignKey[];
  checks: Check[];
  uniques: Unique[];
  indexes: Index[];
  managed: boolean;
  /** What the table is for (a resource's path, or the relation a join table holds); used in messages. */
  about?: string;
}

export type Schema = Map<string, Table>;

/** SQL identifier, double-quoted. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** SQL string literal. */
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The SQL literal of a default value (numbers and booleans bare, anything else quoted). */
export const valueSql = (value: string | number | boolean): string => (typeof value === 'string' ? literal(value) : String(value));

/** How PostgreSQL's format_type spells the types columns use, shortened as declarations and migrations spell them. */
const SHORT: [RegExp, string][] = [
  [/^character varying/, 'varchar'],
  [/^timestamp(\(\d+\))? with time zone$/, 'timestamptz$1'],
  [/^time(\(\d+\))? without time zone$/, 'time$1'],
];

export function shortType(formatted: string): string {
  for (const [pattern, short] of SHORT) if (pattern.test(formatted)) return formatted.replace(pattern, short);
  return formatted;
}

/**
 * Knex's default constraint and index names (`<table>_<columns>_<suffix>`), cut as PostgreSQL cuts
 * identifiers.
 */
export function constraintName(table: string, columns: readonly string[], suffix: 'index' | 'trgm' | 'unique' | 'foreign' | 'check' | 'pkey'): string {
  const name = suffix === 'pkey' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`;
  return name.slice(0, 63);
}

/** An index's name: Knex's for a b-tree, `…_trgm` for a trigram index. */
export const indexName = (table: string, index: Index): string => constraintName(table, index.columns, index.trigram ? 'trgm' : 'index');
