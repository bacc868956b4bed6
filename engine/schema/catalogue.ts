/**
 * The schema a database has, read from pg_catalog: every table of the current schema with its
 * columns (type as format_type spells it, shortened), nullability, defaults, primary key, foreign
 * keys with delete rules, enum CHECKs, unique constraints, b-tree and trigram indexes (other kinds
 * are left alone, as expression and partial indexes are), and whether it carries the managed mark.
 * Lists are aggregated as JSON, which pg and PGlite both parse alike.
 */
import type { Knex } from 'knex';
import { MANAGED, NOW, RANDOM_UUID, SERIAL, TRIGRAM, shortType, type Check, type DeleteAction, type Default, type Schema, type Table } from './model.js';

interface ColumnRow {
  table: string;
  name: string;
  type: string;
  notnull: boolean;
  default: string | null;
}

interface ConstraintRow {
  table: string;
  name: string;
  /** p(rimary key), u(nique), f(oreign key), c(heck) … */
  type: string;
  columns: string[];
  ref: string | null;
  on_delete: string;
  def: string;
}

interface IndexRow {
  table: string;
  name: string;
  unique: boolean;
  columns: string[];
  /** Backs a constraint (primary key, unique): read as that constraint. */
  constrained: boolean;
  /** On expressions or partial: beyond what declarations express. */
  special: boolean;
  /** Access method: `btree`, `gin` … */
  method: string;
  /** Per column, its operator class where not the type's default (`gin_trgm_ops`), else null. */
  opclasses: (string | null)[];
}

const ACTIONS: Record<string, DeleteAction> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL' };

const IN_SCHEMA = `n.nspname = current_schema() and c.relkind = 'r'`;
const COLUMNS_OF = (key: string, rel: string) =>
  `coalesce((select json_agg(a.attname order by u.i) from unnest(${key}) with ordinality u(n, i)
    join pg_attribute a on a.attrelid = ${rel} and a.attnum = u.n), '[]'::json)`;

/** `CHECK ((state = ANY (ARRAY['a'::text, 'b'::text])))`: the values, or undefined for any other check. */
function enumValues(def: string): string[] | undefined {
  if (!/= ANY \(/.test(def)) return undefined;
  return [...def.matchAll(/'((?:[^']|'')*)'::/g)].map((m) => m[1]!.replace(/''/g, "'"));
}

/** A default as the model holds it; a constant's key is settled in the database (settle.ts). */
function readDefault(sql: string | null): Default | null {
  if (sql === null) return null;
  if (sql.startsWith('nextval(')) return SERIAL;
  if (/^(CURRENT_TIMESTAMP|now\(\))$/i.test(sql)) return NOW;
  if (sql === RANDOM_UUID.sql) return RANDOM_UUID;
  return { sql };
}

export async function readSchema(db: Knex): Promise<Schema> {
  const tables = (await db.raw(`select c.relname as name, obj_description(c.oid, 'pg_class') as comment
    from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${IN_SCHEMA} order by c.relname`)).rows as { name: string; comment: string | null }[];
  const columns = (await db.raw(`select c.relname as table, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
      a.attnotnull as notnull, pg_get_expr(d.adbin, d.adrelid) as default
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where ${IN_SCHEMA} and a.attnum > 0 and not a.attisdropped order by c.relname, a.attnum`)).rows as ColumnRow[];
  const constraints = (await db.raw(`select c.relname as table, k.conname as name, k.contype as type, f.relname as ref,
      k.confdeltype as on_delete, pg_get_constraintdef(k.oid) as def, ${COLUMNS_OF('k.conkey', 'k.conrelid')} as columns
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_class f on f.oid = k.confrelid where ${IN_SCHEMA} order by k.conname`)).rows as ConstraintRow[];
  const indexes = (await db.raw(`select c.relname as table, i.relname as name, x.indisunique as unique,
      exists (select 1 from pg_constraint k where k.conindid = x.indexrelid and k.conrelid = x.indrelid) as constrained,
      (x.indexprs is not null or x.indpred is not null) as special, ${COLUMNS_OF('x.indkey::int2[]', 'x.indrelid')} as columns,
      am.amname as method, (select json_agg(case when o.opcdefault then null else o.opcname end order by u.i)
        from unnest(x.indclass::oid[]) with ordinality u(oid, i) join pg_opclass o on o.oid = u.oid) as opclasses
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid join pg_am am on am.oid = i.relam
    join pg_namespace n on n.oid = c.relnamespace where ${IN_SCHEMA} order by i.relname`)).rows as IndexRow[];

  const schema: Schema = new Map();
  for (const t of tables) {
    schema.set(t.name, { name: t.name, columns: [], primaryKey: [], foreignKeys: [], checks: [], uniques: [], indexes: [], managed: t.comment === MANAGED });
  }
  const table = (name: string): Table => schema.get(name)!;
  for (const c of columns) table(c.table).columns.push({ name: c.name, type: shortType(c.type), nullable: !c.notnull, default: readDefault(c.default) });
  for (const k of constraints) {
    const t = table(k.table);
    if (k.type === 'p') t.primaryKey = k.columns;
    else if (k.type === 'u') t.uniques.push({ columns: k.columns, name: k.name, constraint: true });
    else if (k.type === 'f' && k.columns.length === 1) t.foreignKeys.push({ column: k.columns[0]!, table: k.ref!, onDelete: ACTIONS[k.on_delete] ?? 'NO ACTION', name: k.name });
    else if (k.type === 'c') t.checks.push(checkOf(k));
  }
  for (const x of indexes) {
    const kind = kindOf(x);
    if (x.constrained || x.special || !kind) continue;
    if (x.unique) table(x.table).uniques.push({ columns: x.columns, name: x.name, constraint: false });
    else table(x.table).indexes.push({ columns: x.columns, name: x.name, ...(kind === 'trigram' && { trigram: true }) });
  }
  return schema;
}

/** A b-tree on default operators, or a trigram GIN; undefined for any other kind, which declarations never make. */
function kindOf(x: IndexRow): 'btree' | 'trigram' | undefined {
  if (x.method === 'btree' && x.opclasses.every((o) => o === null)) return 'btree';
  if (x.method === TRIGRAM.method && x.opclasses.every((o) => o === TRIGRAM.opclass)) return 'trigram';
  return undefined;
}

function checkOf(k: ConstraintRow): Check {
  const values = k.columns.length === 1 ? enumValues(k.def) : undefined;
  // a check of another shape is kept as its definition, so a comparison never mistakes it for an enum
  return { column: k.columns.join(','), values: values ?? [], name: k.name, definition: values ? undefined : k.def };
}
