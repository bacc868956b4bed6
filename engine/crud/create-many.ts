/**
 * Many creates of one resource as one statement: the rows of an import that share a shape (the
 * columns and links they set), each diagnosed per row by the same rules as a single create
 * (write-statement.ts: references exist and the caller sees them, links share the declared parent),
 * all written only when no row is refused; it answers the first refused row's diagnostics, which
 * the rule's one formatter words (write/diagnostics.ts). Imports write a refused chunk again one
 * record at a time (every error of every row); the bulk writer names the row. The ids are drawn
 * first, in the rows' order, so rows of several shapes keep it.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { frag, q, type Fragment } from '../storage/sql.js';
import { FieldErrorCollector, type FieldErrors } from '../errors.js';
import type { Resource } from '../registry/resource.js';
import { referenceErrors, type ReferenceDiagnostics } from '../write/diagnostics.js';
import type { Validated, Values } from './body.js';
import { rowsOf, type Row } from './rows.js';
import { diagnosticsObject, intArray, referenceDiagnostics, stateLog, typedValues, type StatementWrites, type Write } from './write-statement.js';
import { DIAG, IN, NEW, part, V } from '../write/parts.js';

/** A row of the batch: its drawn id, its column values and its links' ids (in the order of the shape's links). */
export interface NewRow {
  id: number;
  row: Row;
  links: readonly (readonly number[])[];
}

/** The first refused row of a batch: its index and its errors, worded as a single create words them. */
export interface Refusal {
  index: number;
  errors: FieldErrors;
}

/**
 * The statement creating `rows`, all of `shape`'s columns and links: `IN` holds one row per record
 * and `V` its values, so the rules' SQL (written for one record's `IN` and `V`) reads each in turn.
 * Answers `refused`: the first refused row's id and diagnostics as JSON, null when all were written.
 * `log`: the new records' states go to the state log (a caller with its own moves logs them itself).
 */
export function createManyStatement(shape: Write, rows: readonly NewRow[], log = true): Fragment {
  const table = q(shape.resource.table);
  const columns = Object.keys(shape.row).map(q);
  const linkColumns = shape.links.map((l, i) => `, (r.j -> 'l' ->> ${i})::int[] as ${l.column}`).join('');
  const input = frag(`${IN} as (select (r.j ->> 'id')::int as w_id, r.j -> 'row' as w_row${linkColumns} from json_array_elements(?::json) r(j))`, [
    JSON.stringify(rows.map((r) => ({ id: r.id, row: r.row, l: r.links.map(intArray) }))),
  ]);
  const each = `${IN} cross join lateral ${typedValues(shape.resource, Object.keys(shape.row), `${IN}.w_row`)}`;
  const found = diagnosticsObject(referenceDiagnostics(shape));
  const diagnostics = frag(`${DIAG} as (select ${IN}.w_id, ${found.sql}::text as d from ${each})`, found.bindings);
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
  const parts = [input, diagnostics, insert, ...links, ...(log ? stateLog(shape) : [])];
  return frag(
    `with ${parts.map((p) => p.sql).join(', ')} select (select json_build_object('id', w_id, 'd', d::json) from ${DIAG} where ${DIAG}.d <> '{}' order by w_id limit 1)::text as refused`,
    parts.flatMap((p) => p.bindings),
  );
}

/** `count` new ids of `resource`'s sequence, in the order drawn. */
export async function drawIds(trx: Knex.Transaction, resource: Resource, count: number): Promise<number[]> {
  const drawn = rowsOf(await trx.raw(`select nextval(pg_get_serial_sequence(?, 'id'))::int as id from generate_series(1, ?) order by 1`, [q(resource.table), count]));
  return drawn.map((r) => r.id as number);
}

/**
 * Writes each of `values` (held to its shape, states and order already) as the record of the same
 * index in `ids`, one statement per shape of row: the first refused row, when any is (some shapes
 * may then be written: the caller rolls back), else undefined.
 */
export async function writeMany(writes: StatementWrites, trx: Knex.Transaction, user: Principal, values: readonly Values[], ids: readonly number[], log = true): Promise<Refusal | undefined> {
  const planned = await Promise.all(values.map((v) => writes.write(user, v, false)));
  const shapes = new Map<string, { shape: Write; rows: NewRow[] }>();
  for (const [i, w] of planned.entries()) {
    const key = `${Object.keys(w.row).join()};${w.links.map((l) => l.m.name).join()}`;
    const group = shapes.get(key) ?? { shape: w, rows: [] };
    shapes.set(key, group);
    group.rows.push({ id: ids[i]!, row: w.row, links: w.links.map((l) => l.ids) });
  }
  for (const { shape, rows } of shapes.values()) {
    const answer = (await writes.attempt(() => writes.answer(trx, createManyStatement(shape, rows, log)))) as { refused?: string | null } | undefined;
    if (!answer?.refused) continue;
    const { id, d } = JSON.parse(answer.refused) as { id: number; d: ReferenceDiagnostics };
    const index = ids.indexOf(id);
    return { index, errors: referenceErrors(writes.resource, values[index]!, d, new FieldErrorCollector()).errors };
  }
  return undefined;
}

/**
 * Creates every record of `inputs` in `trx`, one statement per shape of row, the ids drawn first
 * in their order: true when all were written. False when any is refused (by its shape, states,
 * order or references), with some shapes possibly written: the caller rolls back and writes them
 * one at a time, which words each refusal with the rest of the record's errors.
 */
export async function createMany(writes: StatementWrites, trx: Knex.Transaction, user: Principal, inputs: readonly Validated[]): Promise<boolean> {
  if (inputs.some(({ values, errors }) => errors.has() || !writes.createsInOrder(values))) return false;
  const values = inputs.map((i) => i.values);
  return (await writeMany(writes, trx, user, values, await drawIds(trx, writes.resource, values.length))) === undefined;
}
