/**
 * An import of a sheet's rows into one resource, all or nothing: one transaction, each row written
 * through the service's own create or update (the API's validation, field permissions, references,
 * states, rules and hooks), so a row is refused exactly as the same body sent to the API would be.
 * A chunk of new records is created with a statement per shape of row where nothing needs the
 * process's checks, and one at a time (the same path as the API's) when any row is refused.
 * Every row is tried even after one is refused, so the answer lists every error (`{row, field,
 * messages}`); then nothing is kept. A dry run is the same run rolled back at its end.
 *
 * A refusal the statement answers leaves the transaction usable. One that aborts it (a unique
 * index) is rolled back to the savepoint of its chunk of rows, whose rows written before it are
 * written again, so the rows after it are judged against the same records.
 */
import { NOT_AN_INTEGER } from '../crud/validator.js';
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import type { ResourceService } from '../crud/service.js';
import { ApiError, badRequest, DetailError, FIELD_MESSAGES, RowsRefused, ValidationError, type RowError } from '../errors.js';
import { INT_MAX } from '../fields/values.js';
import { q } from '../storage/sql.js';
import { matchColumns, rowBody, type Cell, type ImportKey } from './columns.js';
import type { SheetRow } from './sheets.js';

export const IMPORT_MODES = ['create', 'update', 'upsert'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export interface ImportOptions {
  mode: ImportMode;
  /** What names an existing record (update, upsert). */
  key: ImportKey;
  dryRun: boolean;
}

/** What an import did (a dry run: what it would do). */
export interface ImportResult {
  rows: number;
  created: number;
  updated: number;
  dry_run: boolean;
}

/** Rows per savepoint, and per look-up of their `remote_key`s. */
const CHUNK = 500;

/** Thrown to roll a dry run back, carrying what it found. */
class DryRunDone extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run');
  }
}

const blank = (cells: readonly Cell[]): boolean => cells.every((c) => c === null || c === undefined || (typeof c === 'string' && c.trim() === ''));

/** The sheet's rows after its header, blank ones left out, as bodies (a module-level generator: see text-pieces.ts, piecesOf). */
async function* bodiesOf(sheet: AsyncIterator<SheetRow>, columns: Parameters<typeof rowBody>[0]): AsyncGenerator<Body> {
  for (let next = await sheet.next(); !next.done; next = await sheet.next()) if (!blank(next.value.cells)) yield { number: next.value.number, body: rowBody(columns, next.value.cells) };
}

/** What one row's refusal says, as row errors. */
function rowErrors(row: number, err: ApiError, key: ImportKey): RowError[] {
  if (err instanceof ValidationError) return Object.entries(err.errors).map(([field, messages]) => ({ row, field, messages }));
  if (err instanceof DetailError) return [{ row, field: err.status === 404 ? key : null, messages: [err.detail] }];
  return [{ row, field: null, messages: [JSON.stringify(err.body())] }];
}

async function aborted(trx: Knex.Transaction): Promise<boolean> {
  try {
    await trx.raw('select 1');
    return false;
  } catch {
    return true;
  }
}

export class Importer {
  constructor(private readonly service: ResourceService) {}

  /**
   * Imports `rows` (the header first) as `user`; `progress` hears how many rows are done after each
   * chunk. Throws RowsRefused (400) listing every error, or a header problem, before anything is kept.
   */
  async run(user: Principal, options: ImportOptions, rows: AsyncIterable<SheetRow>, progress?: (done: number) => Promise<void>): Promise<ImportResult> {
    const sheet = rows[Symbol.asyncIterator]();
    const header = await sheet.next();
    if (header.done) throw badRequest('The file is empty: its first row names the columns.');
    const { columns, problems } = matchColumns(this.service.view, header.value.cells);
    const refused: RowError[] = problems.map((p) => ({ row: header.value.number, field: p.header, messages: [p.message] }));
    if (options.mode !== 'create' && !columns.some((c) => c?.name === options.key)) {
      refused.push({ row: header.value.number, field: options.key, messages: [`A column "${options.key}" names the records to ${options.mode}.`] });
    }
    if (refused.length) throw new RowsRefused(refused);
    try {
      return await this.service.transaction(user, (trx) => this.write(trx, { ...user, transaction: trx }, options, bodiesOf(sheet, columns), progress));
    } catch (err) {
      if (err instanceof DryRunDone) return err.result;
      throw err;
    }
  }

  private async write(trx: Knex.Transaction, user: Principal, options: ImportOptions, rows: AsyncIterable<Body>, progress?: (done: number) => Promise<void>): Promise<ImportResult> {
    const result: ImportResult = { rows: 0, created: 0, updated: 0, dry_run: options.dryRun };
    const errors: RowError[] = [];
    let chunk: Body[] = [];
    const flush = async () => {
      await this.chunk(trx, user, options, chunk, result, errors);
      result.rows += chunk.length;
      chunk = [];
      await progress?.(result.rows);
    };
    for await (const row of rows) {
      chunk.push(row);
      if (chunk.length === CHUNK) await flush();
    }
    if (chunk.length) await flush();
    if (errors.length) throw new RowsRefused(errors);
    if (options.dryRun) throw new DryRunDone(result);
    return result;
  }

  /**
   * Writes one chunk under a savepoint: at once when every row creates a record and no error has
   * been met (the service's createMany); else, or when that refuses any row, one row at a time,
   * which words each refusal. A refusal that aborts the transaction rolls back to the savepoint and
   * writes the chunk's good rows again.
   */
  private async chunk(trx: Knex.Transaction, user: Principal, options: ImportOptions, rows: readonly Body[], result: ImportResult, errors: RowError[]): Promise<void> {
    await trx.raw('savepoint w_import');
    const known = await this.knownKeys(trx, options, rows);
    if (errors.length === 0 && (await this.createdAtOnce(trx, user, options, rows, known))) {
      result.created += rows.length;
      return void (await trx.raw('release savepoint w_import'));
    }
    const written: Body[] = [];
    for (const row of rows) {
      try {
        const action = await this.writeRow(user, options, row, known);
        result[action]++;
        written.push(row);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.push(...rowErrors(row.number, err, options.key));
        if (!(await aborted(trx))) continue;
        await trx.raw('rollback to savepoint w_import');
        // the same rows again: they were written before, and are now
        for (const again of written) await this.writeRow(user, options, again, known);
      }
    }
    await trx.raw('release savepoint w_import');
  }

  /** Whether the chunk's rows, all creates, were written at once; if not, nothing of them is (rolled back to the savepoint). */
  private async createdAtOnce(trx: Knex.Transaction, user: Principal, options: ImportOptions, rows: readonly Body[], known: Map<string, number>): Promise<boolean> {
    if (options.mode === 'update') return false;
    try {
      if (rows.some(({ body }) => this.existing(options.key, body, known) !== undefined)) return false;
      if (await this.service.createMany(trx, user, rows.map(({ body }) => withoutId(body)))) return true;
    } catch (err) {
      // a malformed key, a unique index, a value the database refused: the rows one at a time say which
      if (!(err instanceof ApiError)) throw err;
    }
    await trx.raw('rollback to savepoint w_import');
    return false;
  }

  /** For an update or upsert by `remote_key`: the ids of the chunk's keys that exist. */
  private async knownKeys(trx: Knex.Transaction, options: ImportOptions, rows: readonly Body[]): Promise<Map<string, number>> {
    if (options.mode === 'create' || options.key !== 'remote_key') return new Map();
    const keys = rows.map((r) => r.body.remote_key).filter((k): k is string => typeof k === 'string');
    const found = (await trx.raw(`select id, remote_key from ${q(this.service.resource.table)} where remote_key = any(?::text[])`, [keys])) as { rows: { id: number; remote_key: string }[] };
    return new Map(found.rows.map((r) => [r.remote_key, r.id]));
  }

  /** One row's write; which it was. */
  private async writeRow(user: Principal, { mode, key }: ImportOptions, { body }: Body, known: Map<string, number>): Promise<'created' | 'updated'> {
    const id = mode === 'create' ? undefined : this.existing(key, body, known);
    if (id === undefined && mode === 'update') throw ValidationError.field(key, body[key] === undefined ? FIELD_MESSAGES.required : 'Not found.');
    if (id === undefined) {
      await this.service.create(user, withoutId(body));
      return 'created';
    }
    await this.service.update(user, id, withoutId(body), true);
    return 'updated';
  }

  /** The id of the record the row names, if it names one; a malformed id is refused. */
  private existing(key: ImportKey, body: Record<string, unknown>, known: Map<string, number>): number | undefined {
    const value = body[key];
    if (value === undefined) return undefined;
    if (key === 'remote_key') return known.get(String(value));
    if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > INT_MAX) throw ValidationError.field('id', NOT_AN_INTEGER);
    return value as number;
  }
}

interface Body {
  number: number;
  body: Record<string, unknown>;
}

/** The body without `id`, which names the record rather than sets a value. */
function withoutId(body: Record<string, unknown>): Record<string, unknown> {
  if (!('id' in body)) return body;
  const rest = { ...body };
  delete rest.id;
  return rest;
}
