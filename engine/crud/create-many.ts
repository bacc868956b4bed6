/**
 * Many creates of one resource as one statement: the rows of an import that share a shape (the
 * columns and links they set), each diagnosed per row by the same rules as a single create
 * (write-statement.ts: references exist and the caller sees them, links share the declared parent),
 * all written only when no row is refused. It answers how many rows were refused, not why: a
 * refused batch is written again one record at a time, which words each refusal as the API does.
 * The ids are drawn by the caller, in the sheet's order, so rows of several shapes keep it.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { frag, q, type Fragment } from '../storage/sql.js';
import type { Validated } from './body.js';
import { rowsOf, type Row } from './rows.js';
import { diagnosticsObject, DIAG, IN, intArray, NEW, part, referenceDiagnostics, stateLog, V, type StatementWrites, type Write } from './write-statement.js';

/** A row of the batch: its drawn id, its column values and its links' ids (in the order of the shape's links). */
export interface NewRow {
  id: number;
  row: Row;
  links: readonly (readonly number[])[];
}

/**
 * The statement creating `rows`, all of `shape`'s columns and links: `IN` holds one row per record
 * and `V` its values, so the rules' SQL (written for one record's `IN` and `V`) reads each in turn.
 * Answers `refused`, the number of rows whose diagnostics are not empty (0: all were written).
 */
export function createManyStatement(shape: Write, rows: readonly NewRow[]): Fragment {
  const table = q(shape.resource.table);
  const columns = Object.keys(shape.row).map(q);
  const linkColumns = shape.links.map((l, i) => `, (r.j -> 'l' ->> ${i})::int[] as ${l.column}`).join('');
  const input = frag(`${IN} as (select (r.j ->> 'id')::int as w_id, r.j -> 'row' as w_row${linkColumns} from json_array_elements(?::json) r(j))`, [
    JSON.stringify(rows.map((r) => ({ id: r.id, row: r.row, l: r.links.map(intArray) }))),
  ]);
  const each = `${IN} cross join lateral json_populate_record(null::${table}, ${IN}.w_row) ${V}`;
  const found = diagnosticsObject(referenceDiagnostics(shape));
  const diagnostics = frag(`${DIAG} as (select ${found.sql}::text as d from ${each})`, found.bindings);
  const insert = frag(
    `${NEW} as (insert into ${table} (id, ${columns.join(', ')}) select ${IN}.w_id, ${columns.map((c) => `${V}.${c}`).join(', ')} from ${each} ` +
      `where not exists (select 1 from ${DIAG} where ${DIAG}.d <> '{}') order by ${IN}.w_id returning *)`,
  );
  const links = shape.links.map((l, i) => {
    const { table: joins, sourceColumn, targetColumn } = l.m.spec;
    return frag(
      `${part(`add${i}`)} as (insert into ${q(joins)} (${q(sourceColumn)}, ${q(targetColumn)}) select ${NEW}.id, x.id from ${NEW} join ${IN} on ${IN}.w_id = ${NEW}.id cross join unnest(${IN}.${l.column}) x(id))`,
    );
  });
  const parts = [input, diagnostics, insert, ...links, ...stateLog(shape)];
  return frag(
    `with ${parts.map((p) => p.sql).join(', ')} select (select count(*) from ${DIAG} where ${DIAG}.d <> '{}')::int as refused`,
    parts.flatMap((p) => p.bindings),
  );
}

/**
 * Creates every record of `inputs` in `trx`, one statement per shape of row, the ids drawn first
 * in their order: true when all were written. False when any is refused (by its shape, states,
 * order or references), with some shapes possibly written: the caller rolls back and writes them
 * one at a time, which words each refusal.
 */
export async function createMany(writes: StatementWrites, trx: Knex.Transaction, user: Principal, inputs: readonly Validated[]): Promise<boolean> {
  if (inputs.some(({ values, errors }) => errors.has() || !writes.createsInOrder(values))) return false;
  const resource = writes.resource;
  const planned = await Promise.all(inputs.map(({ values }) => writes.write(user, values, false)));
  const drawn = rowsOf(await trx.raw(`select nextval(pg_get_serial_sequence(?, 'id'))::int as id from generate_series(1, ?) order by 1`, [q(resource.table), inputs.length]));
  const shapes = new Map<string, { shape: Write; rows: NewRow[] }>();
  for (const [i, w] of planned.entries()) {
    const key = `${Object.keys(w.row).join()};${w.links.map((l) => l.m.name).join()}`;
    const group = shapes.get(key) ?? { shape: w, rows: [] };
    shapes.set(key, group);
    group.rows.push({ id: drawn[i]!.id as number, row: w.row, links: w.links.map((l) => l.ids) });
  }
  for (const { shape, rows } of shapes.values()) {
    const answer = (await writes.attempt(() => writes.answer(trx, createManyStatement(shape, rows)))) as { refused?: number } | undefined;
    if (answer?.refused !== 0) return false;
  }
  return true;
}
