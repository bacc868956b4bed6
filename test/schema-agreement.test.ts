/**
 * The migrated database agrees with the declarations, column by column: names, types, lengths,
 * nullability, defaults (the database default is what an insert without the field stores),
 * uniqueness (a unique constraint on exactly the declared column, and on no other), foreign keys
 * with their delete rules, join tables, CHECKs holding exactly the declared enum values, and
 * exactly the index policy's indexes. A declaration and its migrations cannot drift.
 */
import { expect } from 'chai';
import type { ColumnSpec } from '../engine/fields/index.js';
import { typeOf } from '../engine/fields/index.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Field } from '../engine/registry/resource.js';
import { lookupsOf } from '../engine/crud/filters.js';
import { columnTypes } from '../engine/schema/desired.js';
import { indexesOf } from '../engine/schema/index-policy.js';
import { shortType } from '../engine/schema/model.js';
import { suite } from './support/hooks.js';

const registry = await loadRegistry();

interface Column {
  table: string;
  name: string;
  /** As format_type spells it: `character varying(255)`, `timestamp(3) with time zone`. */
  type: string;
  nullable: boolean;
  default: string | null;
}

/** id, uuid, created, modified, created_by and remote_key: type, nullability, default. */
const RECORD_COLUMNS: Record<string, [string, boolean, RegExp | null]> = {
  id: ['integer', false, /^nextval\(/],
  uuid: ['uuid', false, /^gen_random_uuid\(\)$/],
  created: ['timestamp(3) with time zone', false, /^CURRENT_TIMESTAMP$/],
  modified: ['timestamp(3) with time zone', false, /^CURRENT_TIMESTAMP$/],
  created_by: ['integer', true, null],
  remote_key: ['character varying(255)', true, null],
};

/** PostgreSQL's own spelling of a column type as field types name it (`varchar` + length 255). */
function formatted(c: ColumnSpec): string {
  const size = c.length !== undefined ? `(${c.length})` : c.scale !== undefined ? `(${c.precision},${c.scale})` : c.precision !== undefined ? `(${c.precision})` : '';
  const long: Record<string, string> = { varchar: `character varying${size}`, timestamptz: `timestamp${size} with time zone`, time: `time${size} without time zone` };
  return long[c.type] ?? `${c.type}${size}`;
}

/** What an insert without the field stores, as text under the column's type; undefined: nothing (no default). */
function declaredDefault(f: Field): string | undefined {
  const d = typeOf(f.spec).column(f.spec).default ?? ('default' in f.spec ? f.spec.default : undefined);
  return d === undefined ? undefined : String(d);
}

const DELETE_RULE: Record<string, string> = { protect: 'r', cascade: 'c', 'set null': 'n' };

describe('migrations agree with the declarations', () => {
  let columns: Map<string, Map<string, Column>>;
  let foreignKeys: Set<string>;
  /** Plain (not unique) b-tree indexes, and trigram GIN indexes, by table. */
  let indexes: Map<string, string[]>;
  let trigrams: Map<string, string[]>;
  let uniques: Map<string, string[]>;
  let primaryKeys: Map<string, string>;
  let checks: Map<string, { column: string; values: string[] }[]>;

  const query = async (sql: string, bindings: unknown[] = []): Promise<any[]> => (await suite().service.db.raw(sql, bindings as any)).rows;
  /** Column lists per table, as `a,b`. */
  const byTable = (rows: { tbl: string; cols: string[] }[]) => {
    const map = new Map<string, string[]>();
    for (const r of rows) map.set(r.tbl, [...(map.get(r.tbl) ?? []), r.cols.join(',')]);
    return map;
  };

  before(async () => {
    const rows = (await query(`select c.relname as table, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
        not a.attnotnull as nullable, pg_get_expr(d.adbin, d.adrelid) as default
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = current_schema() and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped`)) as Column[];
    columns = new Map();
    for (const r of rows) {
      if (!columns.has(r.table)) columns.set(r.table, new Map());
      columns.get(r.table)!.set(r.name, r);
    }
    const fks = await query(`select c.conrelid::regclass::text as tbl, a.attname as col, c.confrelid::regclass::text as ref, c.confdeltype as rule
      from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1] where c.contype = 'f'`);
    foreignKeys = new Set(fks.map((r: any) => `${r.tbl}.${r.col}->${r.ref}:${r.rule}`));
    const idx = await query(`select t.relname as tbl, i.indisunique as unique, i.indisprimary as primary, (i.indpred is null and i.indexprs is null) as plain,
        (select json_agg(a.attname order by k.ord) from unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as cols,
        am.amname = 'gin' and (select bool_and(o.opcname = 'gin_trgm_ops') from unnest(i.indclass::oid[]) c(oid) join pg_opclass o on o.oid = c.oid) as trigram
      from pg_index i join pg_class t on t.oid = i.indrelid join pg_class x on x.oid = i.indexrelid join pg_am am on am.oid = x.relam`);
    indexes = byTable(idx.filter((r: any) => !r.primary && !r.unique && !r.trigram));
    trigrams = byTable(idx.filter((r: any) => r.trigram));
    uniques = byTable(idx.filter((r: any) => r.unique && !r.primary && r.plain));
    primaryKeys = new Map(idx.filter((r: any) => r.primary).map((r: any) => [r.tbl, r.cols.join(',')]));
    const cks = await query(`select conrelid::regclass::text as tbl, pg_get_constraintdef(k.oid) as def,
        (select json_agg(a.attname) from unnest(k.conkey) u(n) join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n) as cols
      from pg_constraint k where contype = 'c' and conrelid <> 0`);
    checks = new Map();
    for (const c of cks) {
      const values = [...(c.def as string).matchAll(/'((?:[^']|'')*)'::/g)].map((m) => m[1]!.replace(/''/g, "'"));
      checks.set(c.tbl, [...(checks.get(c.tbl) ?? []), { column: c.cols.join(','), values }]);
    }
  });

  for (const resource of registry.resources) {
    describe(`${resource.key} (${resource.table})`, () => {
      it('has exactly the declared columns, with their types, lengths, nullability and defaults', async () => {
        const table = columns.get(resource.table);
        expect(table, `table ${resource.table} missing`).to.not.equal(undefined);
        const expected = new Set(Object.keys(RECORD_COLUMNS));
        for (const [name, [type, nullable, defaultSql]] of Object.entries(RECORD_COLUMNS)) {
          const c = table!.get(name);
          expect(c?.type, name).to.equal(type);
          expect(c?.nullable, `${name} nullability`).to.equal(nullable);
          if (defaultSql) expect(c?.default, `${name} default`).to.match(defaultSql);
          else expect(c?.default, `${name} default`).to.equal(null);
        }
        for (const f of resource.fields) {
          if (!f.column) continue;
          expected.add(f.column);
          const c = table!.get(f.column);
          expect(c, `column ${f.column} missing`).to.not.equal(undefined);
          expect(c!.type, `${f.column} type`).to.equal(formatted(typeOf(f.spec).column(f.spec)));
          expect(c!.nullable, `${f.column} nullability`).to.equal(f.nullable);
          const want = declaredDefault(f);
          if (want === undefined) {
            expect(c!.default, `${f.column}: no default declared`).to.equal(null);
            continue;
          }
          expect(c!.default, `${f.column}: default ${want} declared`).to.not.equal(null);
          // compared as the database reads both under the column's type ('1' and 1.00 agree on numeric(3,2))
          const [row] = await query(`select ((${c!.default})::${c!.type})::text as have, (?::${c!.type})::text as want`, [want]);
          expect(row.have, `${f.column} default`).to.equal(row.want);
        }
        for (const fk of resource.foreignKeys) {
          expected.add(fk.column);
          const c = table!.get(fk.column);
          expect(c?.type, `${fk.column} type`).to.equal('integer');
          expect(c?.nullable, `${fk.column} nullability`).to.equal(!fk.required);
          expect(c?.default, `${fk.column} default`).to.equal(null);
        }
        expect([...table!.keys()].sort()).to.deep.equal([...expected].sort());
      });

      it('has each column of the type the write statements give its value (json_to_record)', () => {
        const table = [...columns.get(resource.table)!.values()].map((c) => [c.name, shortType(c.type)]);
        expect(Object.fromEntries(columnTypes(resource))).to.deep.equal(Object.fromEntries(table));
      });

      it('has a unique constraint on exactly each unique column, and on no other single column', () => {
        const declared = ['uuid', 'remote_key', ...resource.fields.filter((f) => f.column && f.spec.unique).map((f) => f.column!)];
        const single = (uniques.get(resource.table) ?? []).filter((cols) => !cols.includes(','));
        expect(single.sort()).to.deep.equal(declared.sort());
      });

      it('has each foreign key with its declared delete rule, indexed', () => {
        // an index that begins with the key serves its lookups
        const leading = (indexes.get(resource.table) ?? []).map((cols) => cols.split(',')[0]);
        for (const fk of resource.foreignKeys) {
          expect(foreignKeys, fk.column).to.include(`${resource.table}.${fk.column}->${fk.target.table}:${DELETE_RULE[fk.spec.onDelete]}`);
          expect(leading, `index on ${fk.column}`).to.include(fk.column);
        }
        expect(foreignKeys).to.include(`${resource.table}.created_by->users:n`);
      });

      it('has each many-to-many join table with a composite key and cascading foreign keys', () => {
        for (const m of resource.manyToMany) {
          const { table, sourceColumn, targetColumn } = m.spec;
          // a join table declared from both sides (users_groups) has one key, in either order
          expect(primaryKeys.get(table)?.split(',').sort(), table).to.deep.equal([sourceColumn, targetColumn].sort());
          expect(foreignKeys).to.include(`${table}.${sourceColumn}->${resource.table}:c`);
          expect(foreignKeys).to.include(`${table}.${targetColumn}->${m.target.table}:c`);
          const [first, second] = primaryKeys.get(table)!.split(',');
          expect(indexes.get(table), `index on ${table}.${second}`).to.include(second);
          expect(first, table).to.be.oneOf([sourceColumn, targetColumn]);
        }
      });

      it('constrains each enum and state column to exactly its values, and no other column', () => {
        const found = checks.get(resource.table) ?? [];
        for (const f of resource.fields) {
          if (!f.column) continue;
          const values = typeOf(f.spec).column(f.spec).values;
          const mine = found.filter((c) => c.column === f.column);
          if (!values) {
            expect(mine, `CHECK on ${f.column}`).to.deep.equal([]);
            continue;
          }
          expect(mine, `one CHECK on ${f.column}`).to.have.length(1);
          expect([...mine[0]!.values].sort(), `values of ${f.column}`).to.deep.equal([...values].sort());
        }
      });

      it('has exactly the indexes of the index policy, none on a boolean column, a trigram one for substring filters and search', () => {
        const have = indexes.get(resource.table) ?? [];
        const policy = indexesOf(resource);
        const want = (trigram: boolean) => policy.filter((x) => !!x.trigram === trigram).map((x) => x.columns.join(','));
        expect([...have].sort()).to.deep.equal(want(false).sort());
        expect([...(trigrams.get(resource.table) ?? [])].sort()).to.deep.equal(want(true).sort());
        for (const f of resource.fields) {
          const substring = f.spec.search || lookupsOf(f).includes('icontains');
          if (f.column) expect(want(true).includes(f.column), `trigram index on ${f.column}`).to.equal(!!substring);
        }
        for (const f of resource.fields) {
          if (f.column && typeOf(f.spec).column(f.spec).type === 'boolean') {
            expect(have.filter((cols) => cols.split(',')[0] === f.column), `index on boolean ${f.column}`).to.deep.equal([]);
          }
        }
      });
    });
  }
});
