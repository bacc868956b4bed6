/**
 * A batch action (batch.ts) as one statement, built from the parts of a record's own update
 * (write-statement.ts): the records `ids` the caller sees are locked in id order (so batches cannot
 * deadlock), every check of their updates or deletes is computed for each of them in SQL, and the
 * writing CTEs run only when none fails. What is wrong comes back as diagnostics, worded by the
 * rule kinds' formatters: ids not found and references first (400), then records the caller may
 * not change (403), then the first record (in id order) a rule refuses (400, every error of it),
 * then a `protect` reference still held (409). An order rule whose fields the batch sets compares
 * values in the process: the statement answers every record as served and runs between BEGIN and COMMIT.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { conflict, FieldErrorCollector, permissionDenied, ValidationError } from '../errors.js';
import type { RecordRule } from '../declare/index.js';
import { findField, type Resource } from '../registry/resource.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import { ROW, selectList } from '../storage/serialise.js';
import { prepared } from '../storage/statements.js';
import { frag, joinFragments, q, TRUE, type Fragment } from '../storage/sql.js';
import { actorSettings } from '../audit/actor.js';
import { referenceErrors, type ReferenceDiagnostics } from '../write/diagnostics.js';
import { checkOrder } from '../write/order.js';
import { missingReference } from '../write/reference.js';
import { checkStates } from '../write/state.js';
import { stillReferenced, stillReferencedSql, type StillReferenced } from '../write/protect.js';
import type { Values } from './body.js';
import { rowsOf, type Row } from './rows.js';
import { rowValues, type Db } from './store.js';
import { current, diagnosticsObject, intArray, moveGuards, referenceDiagnostics, stateLog, valuesRow, type Write } from './write-statement.js';
import { DIAG, IN, NEW, OLD, part, V } from '../write/parts.js';

/** One batch action: the ids (without repeats, in the order sent), what it sets, and the body's errors found so far. */
export interface BatchInput {
  ids: number[];
  values: Values;
  errors: FieldErrorCollector;
  /** The body's field naming the ids, under which ids not found are refused. */
  idsField: string;
  deleting: boolean;
}

/** What a run of the statement does beside answering the 400s and the 403. */
export interface BatchRun {
  /** Writes (else only diagnoses). */
  write: boolean;
  /** Diagnoses each record's rules (an update's references, moves and order; a delete's `protect` references). */
  rules: boolean;
  /** Answers every record as served (a delete's hooks and escalation checks read them). */
  served: boolean;
}

/** What the statement found wrong; `{}` when it wrote. */
interface BatchDiagnostics {
  missing?: number[];
  references?: ReferenceDiagnostics;
  forbidden?: true;
  stale?: true;
  /** The first record a rule refuses. */
  refused?: number;
  held?: StillReferenced;
}

/** A record the process looks at: its diagnostics and itself as served. */
interface ServedRecord {
  id: number;
  references: ReferenceDiagnostics | null;
  existing: Row;
}

const PER = part('per');

type OrderRule = Extract<RecordRule, { kind: 'order' }>;

export class BatchStatement {
  private readonly orderRules: OrderRule[];

  constructor(private readonly resource: Resource) {
    this.orderRules = resource.rules.filter((r) => r.kind === 'order');
  }

  /**
   * Order rules a batch setting `values` sets a field of: compared in the process over every record
   * as served, the statement between BEGIN and COMMIT. One whose fields it leaves as stored is
   * compared in SQL, the process wording the record it refuses.
   */
  private ordered(values: Values): boolean {
    return this.orderRules.some((r) => r.earlier in values || r.later in values);
  }

  /** SQL: a record (OLD) whose stored values break an order rule the batch does not touch. */
  private storedOutOfOrder(values: Values): string {
    const column = (name: string): string => `${OLD}.${q(findField(this.resource, name)!.column!)}`;
    const kept = this.orderRules.filter((r) => !(r.earlier in values || r.later in values));
    return kept.map((r) => `(${column(r.later)} < ${column(r.earlier)}) is true`).join(' or ') || 'false';
  }

  /**
   * Runs the batch through `db` (a transaction the statement joins, or the pool); throws its
   * refusal. Answers the records locked, as served when `run.served` (else only their ids).
   */
  async run(db: Db, user: Principal, input: BatchInput, run: BatchRun): Promise<Row[]> {
    const refused = input.errors.has();
    // an order rule the batch sets is compared in the process over every record, after a write and before its COMMIT
    const compared = this.ordered(input.values) && run.rules && !input.deleting;
    const served = run.served || compared;
    const w = await this.write(user, input.values, refused);
    const sql = this.statement(w, input, { ...run, write: run.write && !refused, rules: run.rules && !refused, served });
    const label = input.deleting ? `${this.resource.name} records` : undefined;
    const attempt = async (lock: boolean): Promise<Row> => {
      const steps = async (trx: Db) => {
        if (lock) await prepared(trx, this.lockAll(user, input.ids));
        const answer = rowsOf(await prepared(trx, sql))[0]!;
        this.refuse(input, JSON.parse(answer.diagnostics as string) as BatchDiagnostics, (answer.records ?? []) as ServedRecord[], !lock);
        return answer;
      };
      try {
        const inTransaction = (db as Knex.Transaction).isTransaction === true;
        return inTransaction || (!lock && !(compared && run.write)) ? await steps(db) : await db.transaction(steps);
      } catch (err) {
        throw mapDatabaseError(err, label);
      }
    };
    let answer: Row;
    try {
      answer = await attempt(false);
    } catch (err) {
      // a stale snapshot: once more after locking the rows, so the statement's snapshot is taken with the locks held
      if (err !== STALE) throw err;
      answer = await attempt(true);
    }
    return (answer.records ?? ((answer.ids ?? []) as number[]).map((id) => ({ id }))) as Row[];
  }

  /**
   * Throws what `d` says: a stale snapshot (STALE, when `retry`); then, in the order a batch
   * answers, the body's errors with ids not found and bad references, 403, the first record a rule
   * refuses, 409. `records` are those the statement answered as served, in id order.
   */
  private refuse(input: BatchInput, d: BatchDiagnostics, records: readonly ServedRecord[], retry: boolean): void {
    const { errors, idsField, values } = input;
    if (d.stale) {
      if (retry) throw STALE;
      throw new Error(`${this.resource.key}: stale with its rows locked`);
    }
    for (const id of d.missing ?? []) errors.add(idsField, missingReference({ id }));
    errors.with(referenceErrors(this.resource, values, d.references ?? {}, errors)).throwIfAny();
    if (d.forbidden) throw permissionDenied();
    for (const record of records) {
      const found = referenceErrors(this.resource, values, record.references ?? {}, new FieldErrorCollector(), record.existing);
      if (!input.deleting) {
        checkStates({ errors: found, existing: record.existing }, this.resource, values);
        for (const rule of this.orderRules) checkOrder({ errors: found, existing: record.existing }, this.resource, rule, values);
      }
      if (found.has()) throw new ValidationError(found.errors);
    }
    if (d.refused !== undefined) throw new Error(`${this.resource.key}: the statement refused record ${d.refused}, which its rules admit`);
    if (d.held) throw conflict(stillReferenced(this.resource, d.held));
  }

  private async write(user: Principal, values: Values, refused: boolean): Promise<Write> {
    const row = await rowValues(this.resource, values);
    return { resource: this.resource, user, values, row, links: [], update: true, refused, dryRun: false };
  }

  /** Locks the records `ids` that `user` sees, in id order. */
  private lockAll(user: Principal, ids: readonly number[]): Fragment {
    const view = accessPredicate(this.resource, 'view', user, ROW);
    return frag(`select 1 from ${q(this.resource.table)} ${ROW} where ${ROW}.id = any(?::int[])${view ? ` and ${view.sql}` : ''} order by ${ROW}.id for update of ${ROW}`, [
      intArray(ids),
      ...(view?.bindings ?? []),
    ]);
  }

  private statement(w: Write, input: BatchInput, run: BatchRun): Fragment {
    const { resource, user } = w;
    const table = q(resource.table);
    const actor = actorSettings('w_a', user);
    const inputs = frag(`${IN} as (select ?::int[] as w_ids, ?::json as w_row, ${actor.sql})`, [intArray(input.ids), JSON.stringify(w.row), ...actor.bindings]);
    const view = accessPredicate(resource, 'view', user, ROW);
    const locked = frag(
      `${OLD} as (select ${ROW}.*, ${ROW}.xmin as w_xmin from ${table} ${ROW}, ${IN} where ${ROW}.id = any(${IN}.w_ids)${view ? ` and ${view.sql}` : ''} order by ${ROW}.id for update of ${ROW})`,
      view?.bindings,
    );
    // the references the batch sets, as a create's (the same for every record)
    const references = diagnosticsObject(referenceDiagnostics({ ...w, update: false }));
    const change = accessPredicate(resource, 'change', user, OLD) ?? TRUE;
    // each record's rules: an update's references (tree cycles, links a new parent strands) and moves
    // (a key's record, the same for all, is diagnosed once above: a record's own diagnostics are its tree's cycles and its links)
    const ownRules = referenceDiagnostics(w).filter((d) => !resource.foreignKeys.some((fk) => fk.writeName === d.writeName && !fk.spec.tree));
    const rowRules = run.rules && !input.deleting ? diagnosticsObject(ownRules) : undefined;
    const moves = joinFragments(moveGuards(w), 'and');
    const perRecord = rowRules
      ? frag(`${PER} as (select ${OLD}.id, nullif((${rowRules.sql})::text, '{}') as r, (${moves.sql}) is not true or ${this.storedOutOfOrder(w.values)} as m from ${OLD}, ${V}, ${IN})`, [...rowRules.bindings, ...moves.bindings])
      : frag(`${PER} as (select ${OLD}.id, null::text as r, false as m from ${OLD})`);
    const held = run.rules && input.deleting ? stillReferencedSql(resource, `array(select id from ${OLD})`) : null;
    const diagnostics = frag(
      `${DIAG} as (select json_strip_nulls(json_build_object(` +
        `'missing', (select json_agg(x.id order by x.n) from unnest(${IN}.w_ids) with ordinality x(id, n) where not exists (select 1 from ${OLD} where ${OLD}.id = x.id)), ` +
        `'references', nullif((${references.sql})::text, '{}')::json, ` +
        `'forbidden', case when exists (select 1 from ${OLD} where (${change.sql}) is not true) then true end, ` +
        `'stale', case when exists (select 1 from ${OLD} where (${current(resource)}) is not true) then true end, ` +
        `'refused', (select min(p.id) from ${PER} p where p.r is not null or p.m), ` +
        `'held', ${held ?? 'null::json'}))::text as d from ${V}, ${IN})`,
      [...references.bindings, ...change.bindings],
    );
    const allowed = run.write ? `${DIAG}.d = '{}'` : 'false';
    const writes = input.deleting ? [frag(`${part('gone')} as (delete from ${table} ${ROW} using ${OLD}, ${DIAG} where ${ROW}.id = ${OLD}.id and ${allowed})`)] : this.updates(w, allowed);
    // the records the process words: every one when asked, else the first a rule refuses
    const served = `(select row_to_json(s) from (select ${selectList(resource)} from ${OLD} ${ROW} where ${ROW}.id = p.id) s)`;
    const which = run.served ? 'true' : `p.id = (select min(f.id) from ${PER} f where f.r is not null or f.m)`;
    const records = `(select json_agg(json_build_object('id', p.id, 'references', p.r::json, 'existing', ${served}) order by p.id) from ${PER} p where ${which})`;
    const parts = [inputs, locked, valuesRow(resource, Object.keys(w.row)), perRecord, diagnostics, ...writes];
    return frag(
      `with ${parts.map((p) => p.sql).join(', ')} select ${DIAG}.d as diagnostics, ${records} as records, (select json_agg(id order by id) from ${OLD}) as ids from ${DIAG}`,
      parts.flatMap((p) => p.bindings),
    );
  }

  /** The UPDATE of every locked record and its state log, when `allowed` (SQL). */
  private updates(w: Write, allowed: string): Fragment[] {
    const table = q(w.resource.table);
    const sets = [...Object.keys(w.row).map((c) => `${q(c)} = ${V}.${q(c)}`), 'modified = current_timestamp'];
    const update = frag(`${NEW} as (update ${table} ${ROW} set ${sets.join(', ')} from ${OLD}, ${V}, ${IN}, ${DIAG} where ${ROW}.id = ${OLD}.id and ${allowed} returning ${ROW}.*)`);
    return [update, ...stateLog(w)];
  }
}

/** Thrown inside a run whose snapshot is older than a row it locked: it runs once more, the rows locked first. */
const STALE = new Error('stale snapshot');

