/**
 * A create or an update as one SQL statement: one round trip, its own transaction. Data-modifying
 * CTEs check what the check path (service.write) checks — referenced records exist and the caller
 * sees them, linked records share the declared parent, trees stay acyclic, the record is visible
 * and changeable, a state moves along a declared transition — and write the row only when all of
 * that holds, then its links and state log, and answer the record's JSON.
 *
 * The statement only says yes: when a check fails (no row comes back) or a constraint or a value
 * refuses the write, nothing was written, and the caller asks the check path, which gives the
 * exact answer, every error at once. So the guard may be stricter than the checks, never looser.
 *
 * An insert's or update's rows are invisible to the same statement's other scans: the answer is
 * built from the row the write returns, with the links it wrote taken from the parameters.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { actorSettings } from '../audit/actor.js';
import { FieldErrorCollector } from '../errors.js';
import type { RecordRule } from '../declare/index.js';
import { findForeignKey, type Field, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import { buildSelectList, jsonRows, ROW, selectList } from '../storage/serialise.js';
import { entityTagSql } from '../storage/entity-tag.js';
import { joinedTransaction } from '../storage/request-transaction.js';
import { prepared } from '../storage/statements.js';
import { frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import type { Validated, Values } from './body.js';
import type { Precondition } from './service.js';
import { checkOrder, checkStates, closesCycle, rowsOf, uniqueIds, type Row } from './checks.js';
import { rowValues } from './store.js';
import { STATEMENT_PARTS, takesStatement, writePathOf, type WritePath } from './write-paths.js';

/** The name of a part of the statement (no declared table is named so, or every resource takes the check path). */
const part = (name: string): string => `${STATEMENT_PARTS}${name}`;
const [IN, OLD, V, NEW, REF] = [part('in'), part('old'), part('v'), part('new'), part('ref')];

interface Link {
  m: ManyToManyRef;
  /** The new ids, sorted and without repeats, as the record serves them. */
  ids: number[];
  /** Its parameter's column in IN. */
  column: string;
}

/** One write: what it sets, and whether it changes an existing record. */
interface Write {
  resource: Resource;
  user: Principal;
  values: Values;
  /** Column → stored value. */
  row: Row;
  links: Link[];
  update: boolean;
}

/** An id list as one parameter, so the statement's text is the same for any number of ids. */
const intArray = (ids: readonly number[]): string => `{${ids.join(',')}}`;

const stateFields = (resource: Resource): Field[] => resource.fields.filter((f) => f.spec.type === 'state');

/** The statement's parameters as one row: the record's id (updates), its column values as JSON, the link lists. */
function inputs(w: Write, id: number | undefined): Fragment {
  // the actor's settings are made as the parameters are read, before the write's row triggers fire
  const parts = [...(id === undefined ? [] : [frag('?::int as w_id', [id])]), frag('?::json as w_row', [JSON.stringify(w.row)]), actorSettings('w_a')];
  for (const l of w.links) parts.push(frag(`?::int[] as ${l.column}`, [intArray(l.ids)]));
  return frag(`${IN} as (select ${parts.map((p) => p.sql).join(', ')})`, parts.flatMap((p) => p.bindings));
}

/** The values as a row of the resource's table (columns not set are null; only those set are written). */
const valuesRow = (resource: Resource): Fragment => frag(`${V} as (select v.* from ${IN}, json_populate_record(null::${q(resource.table)}, ${IN}.w_row) v)`);

/** `fk`'s value after the write, as SQL. */
function nextKey(w: Write, fk: { writeName: string; column: string }): string {
  if (fk.writeName in w.values) return `${V}.${q(fk.column)}`;
  return w.update ? `${OLD}.${q(fk.column)}` : 'null';
}

const visibleRef = (target: Resource, user: Principal): Fragment[] => {
  const p = accessPredicate(target, 'view', user, REF);
  return p ? [p] : [];
};

/** A record linked through `m` shares the declared parent with the record (checks.ts checkManyToMany). */
function sharesParent(w: Write, m: ManyToManyRef): Fragment[] {
  const same = m.spec.sameParent;
  if (!same) return [];
  const parent = nextKey(w, findForeignKey(w.resource, same.local)!);
  return [frag(`(${parent} is null or ${REF}.${q(findForeignKey(m.target, same.remote)!.column)} = ${parent})`)];
}

/** The references the write sets exist and are visible (checks.ts checkReferences). */
function referenceGuards(w: Write): Fragment[] {
  const guards: Fragment[] = [];
  for (const fk of w.resource.foreignKeys) {
    if (!(fk.writeName in w.values)) continue;
    const value = `${V}.${q(fk.column)}`;
    const seen = joinFragments([frag(`${REF}.id = ${value}`), ...visibleRef(fk.target, w.user)], 'and');
    guards.push(frag(`(${value} is null or exists (select 1 from ${q(fk.target.table)} ${REF} where ${seen.sql}))`, seen.bindings));
    if (fk.spec.tree && w.update) guards.push(frag(`not ${closesCycle(w.resource, fk, value, `${OLD}.id`)}`));
  }
  for (const l of w.links) {
    const ids = `${IN}.${l.column}`;
    const fits = joinFragments([frag(`${REF}.id = any(${ids})`), ...visibleRef(l.m.target, w.user), ...sharesParent(w, l.m)], 'and');
    guards.push(frag(`(select count(*) from ${q(l.m.target.table)} ${REF} where ${fits.sql}) = cardinality(${ids})`, fits.bindings));
  }
  if (!w.update) return guards;
  // a new parent: the records already linked must belong to it (checked whenever the key is set)
  for (const m of w.resource.manyToMany) {
    const same = m.spec.sameParent;
    if (!same || m.writeName in w.values || !(findForeignKey(w.resource, same.local)!.writeName in w.values)) continue;
    const { table, sourceColumn, targetColumn } = m.spec;
    const fits = joinFragments([frag(`${REF}.id = j.${q(targetColumn)}`), ...visibleRef(m.target, w.user), ...sharesParent(w, m)], 'and');
    guards.push(
      frag(
        `not exists (select 1 from ${q(table)} j where j.${q(sourceColumn)} = ${OLD}.id and not exists (select 1 from ${q(m.target.table)} ${REF} where ${fits.sql}))`,
        fits.bindings,
      ),
    );
  }
  return guards;
}

/** A state set on an update stays, or moves along a declared transition (checks.ts checkStates). */
function moveGuards(w: Write): Fragment[] {
  return stateFields(w.resource)
    .filter((f) => f.name in w.values)
    .map((f) => {
      const [to, from] = [`${V}.${q(f.column!)}`, `${OLD}.${q(f.column!)}`];
      const transitions = f.spec.type === 'state' ? f.spec.transitions : {};
      return frag(`(${to} = ${from} or ${to} = any(array(select json_array_elements_text(?::json -> ${from}))))`, [JSON.stringify(transitions)]);
    });
}

/** Links of the new row: a create inserts them all; an update removes those not listed and adds those missing. */
function linkWrites(w: Write): Fragment[] {
  return w.links.flatMap((l, i) => {
    const { table, sourceColumn, targetColumn } = l.m.spec;
    const [source, target] = [q(sourceColumn), q(targetColumn)];
    const missing = w.update ? ` where not exists (select 1 from ${q(table)} j where j.${source} = ${NEW}.id and j.${target} = x.id)` : '';
    const add = frag(`${part(`add${i}`)} as (insert into ${q(table)} (${source}, ${target}) select ${NEW}.id, x.id from ${NEW}, ${IN}, unnest(${IN}.${l.column}) x(id)${missing})`);
    if (!w.update) return [add];
    return [frag(`${part(`drop${i}`)} as (delete from ${q(table)} j using ${NEW}, ${IN} where j.${source} = ${NEW}.id and j.${target} <> all(${IN}.${l.column}))`), add];
  });
}

/** State-log rows: a create's initial states; an update's moves. */
function stateLog(w: Write): Fragment[] {
  const fields = stateFields(w.resource).filter((f) => !w.update || f.name in w.values);
  return fields.map((f, i) => {
    const [to, from] = [`${NEW}.${q(f.column!)}`, `${OLD}.${q(f.column!)}`];
    const moved = w.update ? ` from ${NEW}, ${OLD} where ${to} is distinct from ${from}` : ` from ${NEW}`;
    return frag(
      `${part(`log${i}`)} as (insert into state_changes (resource, record_id, field, from_state, to_state, changed_by) select ?::text, ${NEW}.id, ?::text, ${w.update ? from : 'null'}, ${to}, ?::int${moved})`,
      [w.resource.key, f.name, w.user.id],
    );
  });
}

/** The select list of a written record: its links as written, none yet for those a create does not set. */
function writtenList(w: Write): string {
  const links = new Map(w.links.map((l) => [l.m, `(select ${IN}.${l.column} from ${IN})`]));
  return buildSelectList(w.resource, (m) => links.get(m) ?? (w.update ? undefined : `'{}'::int[]`));
}

/** `with parts` answering the written record's JSON; `list` is its select list. */
const statement = (parts: Fragment[], list: string): Fragment =>
  frag(`with ${parts.map((p) => p.sql).join(', ')} ${jsonRows(list, `${NEW} ${ROW}`)}`, parts.flatMap((p) => p.bindings));

function createStatement(w: Write, list: string): Fragment {
  const table = q(w.resource.table);
  const columns = Object.keys(w.row).map(q);
  const guard = joinFragments(referenceGuards(w), 'and');
  const insert = frag(
    `${NEW} as (insert into ${table} (${columns.join(', ')}) select ${columns.map((c) => `${V}.${c}`).join(', ')} from ${V}, ${IN} where ${guard.sql} returning *)`,
    guard.bindings,
  );
  return statement([inputs(w, undefined), valuesRow(w.resource), insert, ...linkWrites(w), ...stateLog(w)], list);
}

/**
 * The locked row is the version the statement's snapshot shows. A concurrent writer that held the
 * lock and committed leaves a newer version, which the lock hands over while the statement's other
 * scans (links, references) still see the snapshot: a link diff against it would merge two sets.
 * Then the statement writes nothing and the check path, which locks before it reads, answers.
 */
const current = (w: Write): Fragment => frag(`${OLD}.w_xmin = (select s.xmin from ${q(w.resource.table)} s where s.id = ${OLD}.id)`);

/** If-Match: the locked record, as served, carries one of the tags. */
function tagged(w: Write, precondition: Precondition | undefined): Fragment[] {
  if (precondition === undefined || precondition === '*') return [];
  const served = `(${jsonRows(selectList(w.resource), `${OLD} ${ROW}`)})`;
  return [frag(`${entityTagSql(served)} in (select json_array_elements_text(?::json))`, [JSON.stringify(precondition)])];
}

function updateStatement(w: Write, id: number, list: string, precondition: Precondition | undefined): Fragment {
  const table = q(w.resource.table);
  const view = accessPredicate(w.resource, 'view', w.user, ROW);
  const change = accessPredicate(w.resource, 'change', w.user, OLD);
  // the row locked as the check path locks it; a concurrent change is waited for and seen
  const locked = frag(
    `${OLD} as (select ${ROW}.*, ${ROW}.xmin as w_xmin from ${table} ${ROW}, ${IN} where ${ROW}.id = ${IN}.w_id${view ? ` and ${view.sql}` : ''} for update of ${ROW})`,
    view?.bindings,
  );
  const sets = [...Object.keys(w.row).map((c) => `${q(c)} = ${V}.${q(c)}`), 'modified = current_timestamp'];
  const guard = joinFragments([current(w), ...tagged(w, precondition), ...(change ? [change] : []), ...referenceGuards(w), ...moveGuards(w)], 'and');
  const write = frag(
    `${NEW} as (update ${table} ${ROW} set ${sets.join(', ')} from ${OLD}, ${V}, ${IN} where ${ROW}.id = ${OLD}.id and ${guard.sql} returning ${ROW}.*)`,
    guard.bindings,
  );
  return statement([inputs(w, id), locked, valuesRow(w.resource), write, ...linkWrites(w), ...stateLog(w)], list);
}

/** A refusal by the data (SQLSTATE classes 22 and 23): the check path answers it as it always has. */
const refusedByData = (err: unknown): boolean => /^2[23]/.test(String((err as { code?: unknown }).code ?? ''));

/** Thrown to roll back an update whose order rule the process refused; the check path answers it. */
class OutOfOrder extends Error {}

/** A resource's creates and updates as one statement each, where its write path allows. */
export class StatementWrites {
  readonly path: WritePath;
  private readonly orderRules: Extract<RecordRule, { kind: 'order' }>[];
  /** Select lists of written records, by which links the write sets. */
  private readonly lists = new Map<string, string>();

  constructor(
    private readonly resource: Resource,
    private readonly db: Knex,
    all: readonly Resource[],
    /** Password fields: an update setting one takes the check path, which ends the user's other sessions. */
    private readonly credentials: readonly string[],
  ) {
    this.path = writePathOf(resource, all);
    this.orderRules = resource.rules.filter((r) => r.kind === 'order');
  }

  /** The new record's JSON; undefined when the check path must answer (its path, errors, or a refusal). */
  async create(user: Principal, { values, errors }: Validated): Promise<string | undefined> {
    // inside a request's transaction a refused statement would abort it: the checks answer there
    if (errors.has() || joinedTransaction() || !takesStatement(this.path, user.isSuperuser)) return undefined;
    const probe = { errors: new FieldErrorCollector(), existing: undefined };
    checkStates(probe, this.resource, values);
    if (probe.errors.has() || !this.ordered(values, undefined)) return undefined;
    const w = await this.write(user, values, false);
    return this.attempt(() => this.json(this.db, createStatement(w, this.listOf(w))));
  }

  /**
   * The changed record's JSON; undefined when the check path must answer (not found, refused,
   * invalid …). With order rules the statement runs between BEGIN and COMMIT, and the rules compare
   * the new values with the stored ones (the record it answers) before the COMMIT.
   */
  async update(user: Principal, id: number, { values, errors }: Validated, precondition?: Precondition): Promise<string | undefined> {
    if (errors.has() || !takesStatement(this.path, user.isSuperuser) || this.credentials.some((name) => name in values)) return undefined;
    const w = await this.write(user, values, true);
    const sql = updateStatement(w, id, this.listOf(w), precondition);
    if (!this.orderRules.length) return this.attempt(() => this.json(this.db, sql));
    return this.attempt(() =>
      this.db.transaction(async (trx) => {
        const json = await this.json(trx, sql);
        if (json !== undefined && !this.ordered(values, JSON.parse(json) as Row)) throw new OutOfOrder();
        return json;
      }),
    );
  }

  /** Whether the order rules hold for `values` over `existing` (checks.ts checkOrder). */
  private ordered(values: Values, existing: Row | undefined): boolean {
    const c = { errors: new FieldErrorCollector(), existing };
    for (const rule of this.orderRules) checkOrder(c, this.resource, rule, values);
    return !c.errors.has();
  }

  private async write(user: Principal, values: Values, update: boolean): Promise<Write> {
    const row = { ...(await rowValues(this.resource, values)), ...(update ? {} : { created_by: user.id }) };
    const links = this.resource.manyToMany
      .filter((m) => m.writeName in values)
      .map((m, i) => ({ m, ids: uniqueIds(values[m.writeName]).sort((a, b) => a - b), column: `w_l${i}` }));
    return { resource: this.resource, user, values, row, links, update };
  }

  private listOf(w: Write): string {
    const key = `${w.update}:${w.links.map((l) => l.m.name).join()}`;
    let list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, (list = writtenList(w)));
    return list;
  }

  private async json(db: Knex | Knex.Transaction, sql: Fragment): Promise<string | undefined> {
    return rowsOf(await prepared(db, sql))[0]?.json as string | undefined;
  }

  /** `write`'s answer; undefined when the data or an order rule refused it (nothing was written). */
  private async attempt(write: () => Promise<string | undefined>): Promise<string | undefined> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof OutOfOrder || refusedByData(err)) return undefined;
      throw mapDatabaseError(err, undefined);
    }
  }
}
