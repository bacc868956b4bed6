/**
 * The migrated database agrees with the declarations, column by column: names, types, lengths,
 * nullability, foreign keys with their delete rules, join tables, CHECKs for enums and indexes
 * on every foreign key and filterable column. A declaration and its migration cannot drift.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Field } from '../engine/registry/resource.js';
import { suite } from './support/hooks.js';

const registry = await loadRegistry();

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
}

const RECORD_COLUMNS: Record<string, [string, boolean]> = {
  id: ['integer', false],
  uuid: ['uuid', false],
  created: ['timestamp with time zone', false],
  modified: ['timestamp with time zone', false],
  created_by: ['integer', true],
  remote_key: ['character varying', true],
};

function expectedType(f: Field): { type: string; length?: number; precision?: [number, number] } {
  const s = f.spec;
  switch (s.type) {
    case 'string':
    case 'email':
    case 'url':
      return { type: 'character varying', length: s.maxLength };
    case 'color':
      return { type: 'character varying', length: 50 };
    case 'password':
      return { type: 'character varying' };
    case 'text':
    case 'enum':
    case 'state':
      return { type: 'text' };
    case 'integer':
      return { type: 'integer' };
    case 'decimal':
      return { type: 'numeric', precision: [s.digits, s.decimals] };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'date' };
    case 'datetime':
      return { type: 'timestamp with time zone' };
    case 'time':
      return { type: 'time without time zone' };
    case 'json':
      return { type: 'jsonb' };
    case 'permissions':
      return { type: 'ARRAY' };
  }
}

const DELETE_RULE: Record<string, string> = { protect: 'r', cascade: 'c', 'set null': 'n' };

describe('migrations agree with the declarations', () => {
  let columns: Map<string, Map<string, Column>>;
  let foreignKeys: Set<string>;
  let indexedFirst: Set<string>;
  let primaryKeys: Map<string, string>;
  let checks: Map<string, string[]>;

  before(async () => {
    const db = suite().service.db;
    const rows = (await db.raw(`select table_name, column_name, data_type, is_nullable, character_maximum_length, numeric_precision, numeric_scale
      from information_schema.columns where table_schema = 'public'`)).rows as Column[];
    columns = new Map();
    for (const r of rows) {
      if (!columns.has(r.table_name)) columns.set(r.table_name, new Map());
      columns.get(r.table_name)!.set(r.column_name, r);
    }
    const fks = (await db.raw(`select c.conrelid::regclass::text as tbl, a.attname as col, c.confrelid::regclass::text as ref, c.confdeltype as rule
      from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1] where c.contype = 'f'`)).rows;
    foreignKeys = new Set(fks.map((r: any) => `${r.tbl}.${r.col}->${r.ref}:${r.rule}`));
    const idx = (await db.raw(`select t.relname as tbl, a.attname as col from pg_index i join pg_class t on t.oid = i.indrelid
      join pg_attribute a on a.attrelid = t.oid and a.attnum = i.indkey[0]`)).rows;
    indexedFirst = new Set(idx.map((r: any) => `${r.tbl}.${r.col}`));
    const pks = (await db.raw(`select t.relname as tbl, (select string_agg(a.attname, ',' order by k.ord) from unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as cols from pg_index i join pg_class t on t.oid = i.indrelid where i.indisprimary`)).rows;
    primaryKeys = new Map(pks.map((r: any) => [r.tbl, r.cols]));
    const cks = (await db.raw(`select conrelid::regclass::text as tbl, pg_get_constraintdef(oid) as def from pg_constraint where contype = 'c'`)).rows;
    checks = new Map();
    for (const c of cks) checks.set(c.tbl, [...(checks.get(c.tbl) ?? []), c.def]);
  });

  for (const resource of registry.resources) {
    describe(`${resource.key} (${resource.table})`, () => {
      it('has exactly the declared columns, with their types, lengths and nullability', () => {
        const table = columns.get(resource.table);
        expect(table, `table ${resource.table} missing`).to.not.equal(undefined);
        const expected = new Set(Object.keys(RECORD_COLUMNS));
        for (const [name, [type, nullable]] of Object.entries(RECORD_COLUMNS)) {
          expect(table!.get(name)?.data_type, `${name}`).to.equal(type);
          expect(table!.get(name)?.is_nullable, `${name} nullability`).to.equal(nullable ? 'YES' : 'NO');
        }
        for (const f of resource.fields) {
          if (!f.column) continue;
          expected.add(f.column);
          const c = table!.get(f.column);
          expect(c, `column ${f.column} missing`).to.not.equal(undefined);
          const want = expectedType(f);
          expect(c!.data_type, `${f.column} type`).to.equal(want.type);
          if (want.length) expect(c!.character_maximum_length, `${f.column} length`).to.equal(want.length);
          if (want.precision) expect([c!.numeric_precision, c!.numeric_scale], `${f.column} precision`).to.deep.equal(want.precision);
          expect(c!.is_nullable, `${f.column} nullability`).to.equal(f.nullable ? 'YES' : 'NO');
        }
        for (const fk of resource.foreignKeys) {
          expected.add(fk.column);
          const c = table!.get(fk.column);
          expect(c?.data_type, `${fk.column} type`).to.equal('integer');
          expect(c?.is_nullable, `${fk.column} nullability`).to.equal(fk.required ? 'NO' : 'YES');
        }
        expect([...table!.keys()].sort()).to.deep.equal([...expected].sort());
      });

      it('has each foreign key with its declared delete rule, indexed', () => {
        for (const fk of resource.foreignKeys) {
          expect(foreignKeys, fk.column).to.include(`${resource.table}.${fk.column}->${fk.target.table}:${DELETE_RULE[fk.spec.onDelete]}`);
          expect(indexedFirst, `index on ${fk.column}`).to.include(`${resource.table}.${fk.column}`);
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
          expect(indexedFirst, `index on ${table}.${targetColumn}`).to.include(`${table}.${targetColumn}`);
        }
      });

      it('constrains enum and state columns to their values, and indexes filterable columns', () => {
        for (const f of resource.fields) {
          if (!f.column) continue;
          if (f.spec.type === 'enum' || f.spec.type === 'state') {
            const values = f.spec.values;
            const check = (checks.get(resource.table) ?? []).find((d) => d.includes(f.column!) && values.every((v) => d.includes(`'${v}'`)));
            expect(check, `CHECK on ${f.column}`).to.not.equal(undefined);
          }
          if (f.filterable || f.spec.unique) expect(indexedFirst, `index on ${f.column}`).to.include(`${resource.table}.${f.column}`);
        }
      });
    });
  }
});
