/**
 * The schema the declarations want: per resource its record columns, a column per stored field
 * (type from the field type, NOT NULL unless nullable, the declared default as the database
 * default, UNIQUE, a CHECK on enum values), a `<name>_id` per foreign key with its delete rule,
 * the indexes of index-policy.ts, and a join table per many-to-many (composite key, both
 * sides cascading, the second column indexed). A join table declared from both of its sides is
 * one table, keyed as first declared.
 */
import type { DeleteRule } from '../declare/index.js';
import { typeOf, type ColumnSpec } from '../fields/index.js';
import { PRINCIPALS, type Field, type Resource } from '../registry/resource.js';
import { indexesOf } from './index-policy.js';
import { NOW, RANDOM_UUID, SERIAL, valueSql, type Column, type DeleteAction, type Schema, type Table } from './model.js';

const ON_DELETE: Record<DeleteRule, DeleteAction> = { protect: 'RESTRICT', cascade: 'CASCADE', 'set null': 'SET NULL' };

/** `varchar(255)`, `numeric(18,4)`, `timestamptz(3)`, `integer`. */
export function sqlType(c: ColumnSpec): string {
  const size = c.length ?? (c.precision !== undefined && c.scale !== undefined ? `${c.precision},${c.scale}` : c.precision);
  return size === undefined ? c.type : `${c.type}(${size})`;
}

function emptyTable(name: string, about: string): Table {
  return { name, about, columns: [], primaryKey: [], foreignKeys: [], checks: [], uniques: [], indexes: [], managed: true };
}

/** id, uuid, created, modified, created_by and remote_key (CONTRACT 2), as every resource table has them. */
const recordColumns = (): Column[] => [
  { name: 'id', type: 'integer', nullable: false, default: SERIAL },
  { name: 'uuid', type: 'uuid', nullable: false, default: RANDOM_UUID },
  { name: 'created', type: 'timestamptz(3)', nullable: false, default: NOW },
  { name: 'modified', type: 'timestamptz(3)', nullable: false, default: NOW },
  { name: 'created_by', type: 'integer', nullable: true, default: null },
  { name: 'remote_key', type: 'varchar(255)', nullable: true, default: null },
];

function recordTable(resource: Resource, usersTable: string): Table {
  const t = emptyTable(resource.table, resource.path);
  t.columns.push(...resourceColumns(resource));
  t.primaryKey = ['id'];
  t.uniques.push({ columns: ['uuid'] }, { columns: ['remote_key'] });
  t.foreignKeys.push({ column: 'created_by', table: usersTable, onDelete: 'SET NULL' });
  return t;
}

function fieldColumn(f: Field): Column {
  const spec = typeOf(f.spec).column(f.spec);
  const declared = 'default' in f.spec ? f.spec.default : undefined;
  const value = spec.default ?? (declared as string | number | boolean | undefined);
  return { name: f.column!, type: sqlType(spec), nullable: f.nullable, default: value === undefined ? null : { sql: valueSql(value), value } };
}

/** Every column of `resource`'s table, in order: the record's, the stored fields', the foreign keys'. */
const resourceColumns = (resource: Resource): Column[] => [
  ...recordColumns(),
  ...resource.fields.filter((f) => f.column).map(fieldColumn),
  ...resource.foreignKeys.map((fk) => ({ name: fk.column, type: 'integer', nullable: !fk.required, default: null })),
];

/** The constraints and indexes of `resource`'s fields and foreign keys. */
function addConstraints(t: Table, resource: Resource): void {
  for (const f of resource.fields) {
    if (!f.column) continue;
    const values = typeOf(f.spec).column(f.spec).values;
    if (values) t.checks.push({ column: f.column, values });
    if (f.spec.unique) t.uniques.push({ columns: [f.column] });
  }
  for (const fk of resource.foreignKeys) {
    t.foreignKeys.push({ column: fk.column, table: fk.target.table, onDelete: ON_DELETE[fk.spec.onDelete] });
  }
  t.indexes.push(...indexesOf(resource));
}

const typesKept = new WeakMap<Resource, ReadonlyMap<string, string>>();

/** Each column of `resource`'s table with its SQL type, as desiredSchema makes it (the write statements' typed values). */
export function columnTypes(resource: Resource): ReadonlyMap<string, string> {
  let types = typesKept.get(resource);
  if (types === undefined) {
    typesKept.set(resource, (types = new Map(resourceColumns(resource).map((c) => [c.name, c.type]))));
  }
  return types;
}

function joinTables(schema: Schema, resource: Resource): void {
  for (const m of resource.manyToMany) {
    const { table, sourceColumn, targetColumn } = m.spec;
    const other = schema.get(table);
    if (other) {
      // declared from its other side too, over the same two columns
      const same = other.primaryKey.length === 2 && other.primaryKey.every((c) => c === sourceColumn || c === targetColumn);
      if (!same || other.columns.length !== 2) throw new Error(`${resource.key}: join table "${table}" of "${m.name}" is another table's name, or has other columns there.`);
      continue;
    }
    const t = emptyTable(table, `${resource.path} ${m.name}`);
    t.columns.push(
      { name: sourceColumn, type: 'integer', nullable: false, default: null },
      { name: targetColumn, type: 'integer', nullable: false, default: null },
    );
    t.primaryKey = [sourceColumn, targetColumn];
    t.foreignKeys.push(
      { column: sourceColumn, table: resource.table, onDelete: 'CASCADE' },
      { column: targetColumn, table: m.target.table, onDelete: 'CASCADE' },
    );
    // the key's first column serves lookups from the source side
    t.indexes.push({ columns: [targetColumn] });
    schema.set(table, t);
  }
}

export function desiredSchema(resources: readonly Resource[]): Schema {
  const users = resources.find((r) => r.key === PRINCIPALS.user);
  if (!users) throw new Error(`No "${PRINCIPALS.user}" resource is declared: every record's created_by refers to it.`);
  const schema: Schema = new Map();
  for (const r of resources) {
    const t = recordTable(r, users.table);
    addConstraints(t, r);
    schema.set(r.table, t);
  }
  for (const r of resources) joinTables(schema, r);
  return schema;
}
