/**
 * Building blocks of the hand-written migrations (up to 0210), so every table got the same record
 * columns and every relation the same constraint and index. Migrations are generated from the
 * declarations now (`npm run manage -- makemigrations`, engine/schema/), and generated ones spell
 * out every column and constraint instead of calling these. Applied migrations run these on every
 * new database: what they build must not change.
 */
import type { Knex } from 'knex';
import type { DeleteRule } from '../declare/index.js';

const ON_DELETE: Record<DeleteRule, string> = { protect: 'RESTRICT', cascade: 'CASCADE', 'set null': 'SET NULL' };

/** id, uuid, created, modified, created_by and remote_key (CONTRACT 2). */
export function recordColumns(knex: Knex, t: Knex.CreateTableBuilder): void {
  t.increments('id').primary();
  t.uuid('uuid').notNullable().defaultTo(knex.raw('gen_random_uuid()')).unique();
  t.timestamp('created', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('modified', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  t.integer('created_by').nullable().references('id').inTable('users').onDelete('SET NULL').index();
  t.string('remote_key', 255).nullable().unique();
  t.index(['created']);
  t.index(['modified']);
}

/** An indexed foreign-key column `<column>` referencing `<table>.id` with the declared delete rule. */
export function foreignKey(
  t: Knex.CreateTableBuilder | Knex.AlterTableBuilder,
  column: string,
  table: string,
  rule: DeleteRule,
  required = false,
): void {
  const col = t.integer(column).references('id').inTable(table).onDelete(ON_DELETE[rule]).index();
  if (required) col.notNullable();
  else col.nullable();
}

/** A many-to-many join table with a composite primary key; both sides cascade. */
export async function joinTable(
  knex: Knex,
  name: string,
  source: { column: string; table: string },
  target: { column: string; table: string },
): Promise<void> {
  await knex.schema.createTable(name, (t) => {
    t.integer(source.column).notNullable().references('id').inTable(source.table).onDelete('CASCADE');
    t.integer(target.column).notNullable().references('id').inTable(target.table).onDelete('CASCADE');
    t.primary([source.column, target.column]);
    t.index([target.column]);
  });
}
