/**
 * Many new records of one resource at once, set-based, for the seed: one transaction per batch
 * and a fixed handful of statements whatever its size (ids drawn from the sequence, then the
 * records with their links in one statement per shape of row, the imports' (create-many.ts), then
 * the state log's rows from one JSON parameter), where the API spends a round trip per record.
 *
 * The records are held to the declaration as the API holds them: each body passes the API's own
 * validation (shape, permission names), its initial state and state walk the declared lifecycle,
 * and its order rules; the statement diagnoses references (they exist, links share the declared
 * parent) with the single create's SQL and messages; the database enforces enums and unique
 * fields; periods that must not overlap are checked over the batch. The
 * resource's hooks run per record (their queries then count per record), as creates.
 * Callers are trusted: no permission, visibility or escalation checks are made, and hooks read
 * every record. Its writes are neither audited nor sent to webhooks (the seed's demo data is no change anyone made).
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { FieldErrorCollector, ValidationError, type FieldErrors } from '../errors.js';
import type { RecordRule } from '../declare/index.js';
import { findField, type Resource } from '../registry/resource.js';
import { withoutIndexes } from '../storage/bulk-load.js';
import { q } from '../storage/sql.js';
import { withoutCapture } from '../audit/actor.js';
import { overlaps, overlapSql, type Overlap } from '../write/no-overlap.js';
import { checkOrder } from '../write/order.js';
import { checkStates, type StateMove } from '../write/state.js';
import type { Values } from './body.js';
import { rowsOf } from './rows.js';
import type { ResourceService } from './service.js';
import { insertJson, moveRows } from './store.js';
import { drawIds, writeMany } from './create-many.js';

export interface NewRecord {
  /** A create body, as the API accepts it. */
  body: Record<string, unknown>;
  /** Per state field, the states the record then moves through, one declared transition each. */
  walks?: Readonly<Record<string, readonly string[]>>;
}

interface Checked {
  values: Values;
  moves: StateMove[];
}

/** Records per transaction: large enough that round trips do not count, small enough to keep statements modest. */
const BATCH = 2000;
/** Batches written at once (two cores: the database works on one while Node builds the next). */
const WRITERS = 2;

/** `select` of the ids in a JSON array parameter: one binding for any number of ids. */
const IDS = 'select value::int from json_array_elements_text(?::json)';

export class BulkWriter {
  readonly resource: Resource;

  constructor(private readonly service: ResourceService) {
    this.resource = service.resource;
  }

  /**
   * Creates the records `make(1)` … `make(count)` in batches of BATCH, each all or none. Up to
   * WRITERS batches are written at once, each in its own transaction, while the next is built;
   * `landed` hears the size of each batch as it lands. Answers the ids in order.
   */
  async insertAll(user: Principal, count: number, make: (n: number) => NewRecord, landed: (size: number) => void): Promise<number[]> {
    if (count > BATCH && this.copyable) {
      const templates = await this.insertAll(user, BATCH, make, landed);
      const copies = await this.copy(user, templates, count - BATCH);
      landed(copies.length);
      return [...templates, ...copies];
    }
    const ids: number[] = [];
    const writing: Promise<number[]>[] = [];
    const next = async () => {
      const batch = await writing.shift()!;
      ids.push(...batch);
      landed(batch.length);
    };
    for (let first = 1; first <= count; first += BATCH) {
      const records: NewRecord[] = [];
      for (let n = first; n < first + BATCH && n <= count; n++) records.push(make(n));
      if (writing.length >= WRITERS) await next();
      const batch = this.insert(user, records);
      // a failure is reported when its turn comes, not as an unhandled rejection before that
      batch.catch(() => undefined);
      writing.push(batch);
    }
    while (writing.length) await next();
    return ids;
  }

  /** Whether copies of checked records are records the declaration accepts: nothing unique, no hooks, no rule across records. */
  private get copyable(): boolean {
    const r = this.resource;
    return !r.declaration.hooks && r.rules.every((rule) => rule.kind === 'order') && !r.fields.some((f) => 'unique' in f.spec && f.spec.unique === true);
  }

  /**
   * `count` new records, copies of the `templates` in turn (record `templates.length + k` copies
   * template k mod their number), with their links and state logs: one transaction and a fixed
   * handful of INSERT … SELECT statements for any count, the tables' plain indexes built once at
   * the end. Each copy is as valid as its template, which the checks passed. Answers the new ids in order.
   */
  private async copy(user: Principal, templates: readonly number[], count: number): Promise<number[]> {
    const r = this.resource;
    const table = q(r.table);
    const columns = [...r.fields.flatMap((f) => (f.column ? [q(f.column)] : [])), ...r.foreignKeys.map((fk) => q(fk.column))];
    const ids = await this.service.transaction(user, async (trx) => {
      await withoutCapture(trx);
      await trx.raw(
        // the ids drawn as one block of the sequence
        `create temporary table bulk_copies on commit drop as
         select (b.last - ? + 1 + g)::int as id, t.id as source
         from (select setval(pg_get_serial_sequence(?, 'id'), nextval(pg_get_serial_sequence(?, 'id')) + ? - 1) as last) b, generate_series(0, ? - 1) g
         join (select id, row_number() over (order by id) - 1 as k from ${table} where id = any(?::int[])) t on t.k = g % ?`,
        [count, table, table, count, count, [...templates], templates.length],
      );
      await trx.raw('analyze bulk_copies');
      const tables = [r.table, ...r.manyToMany.map((m) => m.spec.table), 'state_changes'];
      await withoutIndexes(trx, tables, async () => {
        await trx.raw(`insert into ${table} (id, created_by, ${columns.join(', ')}) select c.id, ?, ${columns.map((c) => `s.${c}`).join(', ')} from bulk_copies c join ${table} s on s.id = c.source`, [user.id]);
        for (const m of r.manyToMany) {
          const [source, target] = [q(m.spec.sourceColumn), q(m.spec.targetColumn)];
          await trx.raw(`insert into ${q(m.spec.table)} (${source}, ${target}) select c.id, l.${target} from bulk_copies c join ${q(m.spec.table)} l on l.${source} = c.source`);
        }
        // one statement per step of the templates' logs, so each copy's moves keep their order without sorting them all
        await trx.raw(
          `create temporary table bulk_log on commit drop as select *, row_number() over (partition by record_id order by id) as step from state_changes where resource = ? and record_id = any(?::int[])`,
          [r.key, [...templates]],
        );
        const last = rowsOf(await trx.raw('select coalesce(max(step), 0)::int as last from bulk_log'))[0]!.last as number;
        for (let step = 1; step <= last; step++) {
          await trx.raw(
            `insert into state_changes (resource, record_id, field, from_state, to_state, changed_by)
             select s.resource, c.id, s.field, s.from_state, s.to_state, ? from bulk_copies c join bulk_log s on s.record_id = c.source where s.step = ?`,
            [user.id, step],
          );
        }
      });
      return (rowsOf(await trx.raw('select id from bulk_copies order by id')) as { id: number }[]).map((row) => row.id);
    });
    // the planner's statistics, for the lists that follow
    await this.service.transaction(user, (trx) => trx.raw(`analyze ${table}`));
    return ids;
  }

  /** Creates the records in one transaction, all or none; answers their ids in order. */
  async insert(user: Principal, records: readonly NewRecord[]): Promise<number[]> {
    if (records.length === 0) return [];
    const checked = records.map((r, i) => this.check(r, i));
    return this.service.transaction(user, async (trx) => {
      await withoutCapture(trx);
      const hooks = checked.map(({ values }) => this.service.hooks({ trx, operation: 'create', principal: user, values, before: undefined, errors: new FieldErrorCollector(), trusted: true }));
      await perRecord(hooks, async (h) => {
        await h.validate();
        await h.beforeWrite();
      });
      // ids drawn up front, in the records' order; rows, links and reference checks in one statement per shape (create-many.ts)
      const ids = await drawIds(trx, this.resource, records.length);
      const refused = await writeMany(this.service.statements, trx, user, checked.map((c) => c.values), ids, false);
      if (refused) throw recordError(refused.index, refused.errors);
      // the walked moves, which the statement's log of initial states would not hold
      await insertJson(trx, 'state_changes', checked.flatMap((c, i) => moveRows(this.resource, ids[i]!, c.moves, user)));
      for (const rule of this.resource.rules) if (rule.kind === 'noOverlap') await this.checkNoOverlap(trx, rule, ids);
      await perRecord(hooks, (h, i) => h.afterWrite(ids[i]!));
      return ids;
    });
  }

  /** What needs no database: the body as the API validates it, the lifecycle, order rules. */
  private check(record: NewRecord, index: number): Checked {
    const { values, errors } = this.service.validate(record.body, 'create');
    const moves = checkStates({ errors, existing: undefined }, this.resource, values);
    for (const [name, states] of Object.entries(record.walks ?? {})) {
      if (findField(this.resource, name)?.spec.type !== 'state') errors.add(name, 'Not a state field.');
      for (const to of states) {
        if (errors.has(name)) break;
        const from = moves.findLast((m) => m.field.name === name)!.to;
        moves.push(...checkStates({ errors, existing: { [name]: from } }, this.resource, { [name]: to }));
        values[name] = to;
      }
    }
    for (const rule of this.resource.rules) if (rule.kind === 'order') checkOrder({ errors, existing: undefined }, this.resource, rule, values);
    if (errors.has()) throw recordError(index, errors.errors);
    return { values, moves };
  }

  /** No two periods of one scope overlap (the rule's SQL, engine/write/no-overlap.ts, for each new record). */
  private async checkNoOverlap(trx: Knex.Transaction, rule: Extract<RecordRule, { kind: 'noOverlap' }>, ids: number[]): Promise<void> {
    const r = this.resource;
    const column = (name: string): string => `a.${q(r.foreignKeys.find((fk) => fk.writeName === name)?.column ?? findField(r, name)!.column!)}`;
    const [clash] = rowsOf(
      await trx.raw(`select * from (select a.id, ${overlapSql(r, rule, column, 'a.id')} as d from ${q(r.table)} a where a.id in (${IDS})) x where d is not null order by id limit 1`, [
        JSON.stringify(ids),
      ]),
    );
    if (clash) throw recordError(ids.indexOf(clash.id as number), { [rule.start]: [overlaps(this.resource, rule, clash.d as Overlap)] });
  }
}

/** A refused record: the API's messages, each field prefixed with the record's position in the batch. */
function recordError(index: number, errors: FieldErrors): ValidationError {
  return new ValidationError(Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`${index}.${field}`, messages])));
}

/** Runs `step` for each record in turn; a refusal names the record. */
async function perRecord<T>(records: readonly T[], step: (record: T, index: number) => Promise<void>): Promise<void> {
  for (const [index, record] of records.entries()) {
    try {
      await step(record, index);
    } catch (err) {
      throw err instanceof ValidationError ? recordError(index, err.errors) : err;
    }
  }
}
