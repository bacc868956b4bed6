/**
 * The difference between the schema the migrations make and the one the declarations want, as
 * changes: one line for people, the statements that make it (up) and undo it (down). Tables
 * neither declared nor marked managed are the engine's own and are left alone. Changes run in
 * phases, so a constraint goes before its column changes type, a table exists before a key
 * points at it, and columns and tables are dropped last.
 */
import { checkSql, columnSql, createIndexSql, createTable, defaultSql, foreignKeySql, js, raw } from './code.js';
import { MANAGED, TRIGRAM, constraintName, ident, indexName, literal, type Check, type Column, type Index, type Schema, type Table } from './model.js';

export enum Phase {
  Extensions,
  DropConstraints,
  CreateTables,
  AlterColumns,
  AddConstraints,
  DropColumns,
  DropTables,
  Mark,
}

export interface Change {
  table: string;
  /** What is done, e.g. `add index`, `type`, `create table`: counted in a long migration's header. */
  action: string;
  /** One line for people: `issue_issue.title: type varchar(255) → varchar(300)`. */
  summary: string;
  phase: Phase;
  up: string[];
  down: string[];
  /** Drops stored data: written only with --allow-drop. */
  drops?: boolean;
}

const alter = (t: string, clause: string): string => raw(`alter table ${ident(t)} ${clause}`);
const col = (t: Table, c: string): string => `${t.name}.${c}`;
const baseType = (type: string): string => type.replace(/\(.*$/, '');
const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v) => b.includes(v));
const showDefault = (c: Column): string => (c.default ? (c.default.value !== undefined ? JSON.stringify(c.default.value) : c.default.sql) : 'none');

/** Tables in an order where every table comes after those it references (self-references aside). */
export function referencedFirst(tables: Table[]): { order: Table[]; cyclic: Set<Table> } {
  const order: Table[] = [];
  const cyclic = new Set<Table>();
  const left = new Set(tables);
  const names = () => new Set([...left].map((t) => t.name));
  while (left.size) {
    const waiting = names();
    const next = [...left].find((t) => t.foreignKeys.every((fk) => fk.table === t.name || !waiting.has(fk.table))) ?? [...left][0]!;
    if (next.foreignKeys.some((fk) => fk.table !== next.name && waiting.has(fk.table))) cyclic.add(next);
    order.push(next);
    left.delete(next);
  }
  return { order, cyclic };
}

function createTables(tables: Table[]): Change[] {
  const { order, cyclic } = referencedFirst(tables);
  const changes: Change[] = [];
  const created = new Set<string>();
  for (const t of order) {
    // keys to tables created later (a cycle) are added once every table exists
    const later = new Set(cyclic.has(t) ? t.foreignKeys.map((fk) => fk.table).filter((n) => n !== t.name && !created.has(n)) : []);
    changes.push({ table: t.name, action: 'create table', summary: `create table ${t.name}${t.about ? ` (${t.about})` : ''}`, phase: Phase.CreateTables, up: createTable(t, later), down: [`await knex.schema.dropTable(${js(t.name)});`] });
    for (const fk of t.foreignKeys.filter((k) => later.has(k.table))) {
      const name = constraintName(t.name, [fk.column], 'foreign');
      changes.push({ table: t.name, action: 'add foreign key', summary: `${t.name}: add foreign key ${fk.column} → ${fk.table} on delete ${fk.onDelete}`, phase: Phase.AddConstraints, up: [alter(t.name, `add constraint ${ident(name)} ${foreignKeySql(fk)}`)], down: [alter(t.name, `drop constraint ${ident(name)}`)] });
    }
    created.add(t.name);
  }
  return changes;
}

function dropTables(tables: Table[]): Change[] {
  return referencedFirst(tables)
    .order.reverse()
    .map((t) => ({
      table: t.name,
      action: 'drop table',
      summary: `drop table ${t.name} (no longer declared)`,
      phase: Phase.DropTables,
      up: [`await knex.schema.dropTable(${js(t.name)});`],
      // the structure comes back, the data dropped with it does not
      down: createTable(t),
      drops: true,
    }));
}

function columnChanges(want: Table, have: Table): Change[] {
  const changes: Change[] = [];
  const t = want.name;
  const change = (c: string, action: string, detail: string, phase: Phase, up: string, down: string, drops = false) =>
    changes.push({ table: t, action, summary: `${col(want, c)}: ${action}${detail && ` ${detail}`}`, phase, up: [up], down: [down], drops });
  for (const w of want.columns) {
    const h = have.columns.find((c) => c.name === w.name);
    if (!h) {
      const empty = !w.nullable && !w.default ? ' (NOT NULL without a default: fails on a table with rows)' : '';
      change(w.name, 'add column', `${columnSql(w)}${empty}`, Phase.AlterColumns, alter(t, `add column ${columnSql(w)}`), alter(t, `drop column ${ident(w.name)}`));
      continue;
    }
    if (w.type !== h.type) {
      const to = (type: string) => `alter column ${ident(w.name)} type ${type}${baseType(w.type) === baseType(h.type) ? '' : ` using ${ident(w.name)}::${type}`}`;
      change(w.name, 'type', `${h.type} → ${w.type}`, Phase.AlterColumns, alter(t, to(w.type)), alter(t, to(h.type)));
    }
    if (w.nullable !== h.nullable) {
      const [up, down] = w.nullable ? ['drop not null', 'set not null'] : ['set not null', 'drop not null'];
      change(w.name, w.nullable ? 'nullable' : 'not null', '', Phase.AlterColumns, alter(t, `alter column ${ident(w.name)} ${up}`), alter(t, `alter column ${ident(w.name)} ${down}`));
    }
    if (w.default?.key !== h.default?.key) {
      const set = (c: Column) => alter(t, `alter column ${ident(w.name)} ${c.default ? `set default ${defaultSql(c.default)}` : 'drop default'}`);
      change(w.name, 'default', `${showDefault(h)} → ${showDefault(w)}`, Phase.AlterColumns, set(w), set(h));
    }
  }
  for (const h of have.columns) {
    if (want.columns.some((c) => c.name === h.name)) continue;
    change(h.name, 'drop column', '(no longer declared)', Phase.DropColumns, alter(t, `drop column ${ident(h.name)}`), alter(t, `add column ${columnSql(h)}`), true);
  }
  return changes;
}

/** Constraints and indexes: those only wanted are added, those only had are dropped, by what they cover. */
function constraintChanges(want: Table, have: Table): Change[] {
  const t = want.name;
  const changes: Change[] = [];
  const summary = (action: string, what: string) => ({ table: t, action, summary: `${t}: ${action} ${what}` });
  const add = (kind: string, what: string, name: string, clause: string) =>
    changes.push({ ...summary(`add ${kind}`, what), phase: Phase.AddConstraints, up: [alter(t, `add constraint ${ident(name)} ${clause}`)], down: [alter(t, `drop constraint ${ident(name)}`)] });
  const drop = (kind: string, what: string, name: string, clause: string) =>
    changes.push({ ...summary(`drop ${kind}`, what), phase: Phase.DropConstraints, up: [alter(t, `drop constraint ${ident(name)}`)], down: [alter(t, `add constraint ${ident(name)} ${clause}`)] });

  const key = (cols: readonly string[]) => cols.join(',');
  if (key(want.primaryKey) !== key(have.primaryKey)) {
    const clause = (cols: readonly string[]) => `primary key (${cols.map(ident).join(', ')})`;
    if (have.primaryKey.length) drop('primary key', `(${have.primaryKey.join(', ')})`, constraintName(t, [], 'pkey'), clause(have.primaryKey));
    add('primary key', `(${want.primaryKey.join(', ')})`, constraintName(t, [], 'pkey'), clause(want.primaryKey));
  }

  const fkKey = (fk: { column: string; table: string; onDelete: string }) => `${fk.column}→${fk.table}:${fk.onDelete}`;
  for (const fk of have.foreignKeys) {
    if (!want.foreignKeys.some((w) => fkKey(w) === fkKey(fk))) drop('foreign key', `${fk.column} → ${fk.table} on delete ${fk.onDelete}`, fk.name!, foreignKeySql(fk));
  }
  for (const fk of want.foreignKeys) {
    if (!have.foreignKeys.some((h) => fkKey(h) === fkKey(fk))) add('foreign key', `${fk.column} → ${fk.table} on delete ${fk.onDelete}`, constraintName(t, [fk.column], 'foreign'), foreignKeySql(fk));
  }

  const sameCheck = (a: Check, b: Check) => a.column === b.column && !a.definition && !b.definition && sameSet(a.values, b.values);
  const showCheck = (c: Check) => c.definition ?? `${c.column} in (${c.values.join(', ')})`;
  for (const c of have.checks) if (!want.checks.some((w) => sameCheck(w, c))) drop('check', showCheck(c), c.name!, checkSql(c));
  for (const c of want.checks) if (!have.checks.some((h) => sameCheck(h, c))) add('check', showCheck(c), constraintName(t, [c.column], 'check'), checkSql(c));

  for (const u of have.uniques) {
    if (want.uniques.some((w) => key(w.columns) === key(u.columns))) continue;
    if (u.constraint) drop('unique', `(${key(u.columns)})`, u.name!, `unique (${u.columns.map(ident).join(', ')})`);
    else changes.push(indexChange(t, u, u.name!, 'drop', true));
  }
  for (const u of want.uniques) {
    if (!have.uniques.some((h) => key(h.columns) === key(u.columns))) add('unique', `(${key(u.columns)})`, constraintName(t, u.columns, 'unique'), `unique (${u.columns.map(ident).join(', ')})`);
  }
  const indexKey = (x: Index) => `${x.trigram ? 'trigram' : 'btree'} ${key(x.columns)}`;
  for (const x of have.indexes) if (!want.indexes.some((w) => indexKey(w) === indexKey(x))) changes.push(indexChange(t, x, x.name!, 'drop'));
  for (const x of want.indexes) {
    if (!have.indexes.some((h) => indexKey(h) === indexKey(x))) changes.push(indexChange(t, x, indexName(t, x), 'add'));
  }
  return changes;
}

function indexChange(t: string, index: Index, name: string, action: 'add' | 'drop', unique = false): Change {
  const create = raw(createIndexSql(t, index, name, unique));
  const remove = raw(`drop index ${ident(name)}`);
  const kind = `${action} ${unique ? 'unique ' : index.trigram ? 'trigram ' : ''}index`;
  const summary = { table: t, action: kind, summary: `${t}: ${kind} (${index.columns.join(', ')})` };
  return action === 'add' ? { ...summary, phase: Phase.AddConstraints, up: [create], down: [remove] } : { ...summary, phase: Phase.DropConstraints, up: [remove], down: [create] };
}

/**
 * pg_trgm before the first trigram index a migration makes, in a table it creates or one it
 * changes. `if not exists`: an earlier migration, or the database's administrator, may have
 * created it. A database owner may create it (a trusted extension since PostgreSQL 13). It stays
 * on down(): other objects may use it.
 */
function trigramExtension(changes: readonly Change[], created: readonly Table[]): Change[] {
  const needing = [...created.filter((t) => t.indexes.some((x) => x.trigram)).map((t) => t.name), ...changes.filter((c) => c.action === 'add trigram index').map((c) => c.table)];
  if (!needing.length) return [];
  const sql = `create extension if not exists ${TRIGRAM.extension}`;
  return [{ table: needing[0]!, action: 'create extension', summary: `${sql} (trigram indexes)`, phase: Phase.Extensions, up: [raw(sql)], down: [`// ${TRIGRAM.extension} stays: other objects may use it`] }];
}

/** A declared table exists but is not managed, after the first adoption: an engine table, or one made by hand. */
export class SchemaConflict extends Error {}

export function diffSchemas(want: Schema, have: Schema): Change[] {
  // the first generated migration adopts every declared table; after it, a declared table found
  // unmarked is someone else's, and altering it would break them
  const adopting = ![...have.values()].some((t) => t.managed);
  const created = [...want.values()].filter((t) => !have.has(t.name));
  const dropped = [...have.values()].filter((t) => t.managed && !want.has(t.name));
  const changes = [...createTables(created), ...dropTables(dropped)];
  for (const w of want.values()) {
    const h = have.get(w.name);
    if (!h) continue;
    if (!h.managed && !adopting) {
      throw new SchemaConflict(
        `table "${w.name}" (${w.about}) exists, but makemigrations does not manage it: it is the engine's or was made by hand. ` +
          `Declare another table name, or adopt it by hand: comment on table "${w.name}" is '${MANAGED}'.`,
      );
    }
    changes.push(...columnChanges(w, h), ...constraintChanges(w, h));
    if (!h.managed) {
      changes.push({
        table: w.name,
        action: 'mark managed',
        summary: `${w.name}: mark managed (declared${w.about ? ` by ${w.about}` : ''})`,
        phase: Phase.Mark,
        up: [raw(`comment on table ${ident(w.name)} is ${literal(MANAGED)}`)],
        down: [raw(`comment on table ${ident(w.name)} is null`)],
      });
    }
  }
  changes.push(...trigramExtension(changes, created));
  // stable: by phase, then as found (tables in declaration order)
  return changes.map((c, i) => ({ c, i })).sort((a, b) => a.c.phase - b.c.phase || a.i - b.i).map(({ c }) => c);
}
