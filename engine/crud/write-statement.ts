/**
 * A create, an update or a delete as one SQL statement: one round trip, its own transaction.
 * Data-modifying CTEs diagnose every rule the declaration compiles to (engine/write/: referenced
 * records exist and the caller sees them, linked records share the declared parent, trees stay
 * acyclic, the record is visible and changeable, a state moves along a declared transition, no
 * period overlaps, `protect` keys) and write the row only when none fails, then its links and
 * state log, and answer the record's JSON or the diagnostics, which the process words with each
 * rule's one message: every error at once, in a fixed order (shape, references, states, rules).
 *
 * An insert's or update's rows are invisible to the same statement's other scans: the answer is
 * built from the row the write returns, with the links it wrote taken from the parameters.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate, declaredAccess } from '../access/visibility.js';
import { actorSettings } from '../audit/actor.js';
import { CREATED_RECORD, createdRecord } from '../audit/capture-function.js';
import { conflict, FieldErrorCollector, notFound, permissionDenied, preconditionFailed, ValidationError } from '../errors.js';
import { referenceErrors, type ReferenceDiagnostics } from '../write/diagnostics.js';
import type { RecordRule } from '../declare/index.js';
import { findField, findForeignKey, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import { buildSelectList, jsonRows, ROW, selectList } from '../storage/serialise.js';
import { entityTagSql, type Precondition } from '../storage/entity-tag.js';
import { prepared } from '../storage/statements.js';
import { frag, joinFragments, q, TRUE, type Fragment } from '../storage/sql.js';
import { columnTypes } from '../schema/desired.js';
import { literal } from '../schema/model.js';
import { overlaps, overlapSql, type Overlap } from '../write/no-overlap.js';
import { sharedParentKey, straysSql } from '../write/shared-parent.js';
import { stillReferenced, stillReferencedSql, type StillReferenced } from '../write/protect.js';
import type { Validated, Values } from './body.js';
import { checkOrder } from '../write/order.js';
import { DIAG, IN, NEW, OLD, part, REF, V } from '../write/parts.js';
import { refusedRecord } from '../write/refused-record.js';
import { checkStates, stateFields } from '../write/state.js';
import { closesCycle } from '../write/tree.js';
import { rowsOf, uniqueIds, type Row } from './rows.js';
import { rowValues, type Db } from './store.js';

interface Link {
  m: ManyToManyRef;
  /** The new ids, sorted and without repeats, as the record serves them. */
  ids: number[];
  /** Its parameter's column in IN. */
  column: string;
}

/** One write: what it sets, and whether it changes an existing record. */
/** What a statement on a locked record says when it did not write (lockedVerdict). */
interface LockedDiagnostics {
  missing?: true;
  stale?: true;
  forbidden?: true;
  precondition?: true;
}

/** What an update statement says when it did not write (see updateStatement). */
interface UpdateDiagnostics extends LockedDiagnostics {
  references?: ReferenceDiagnostics;
  /** When the rules refused the update: the record's fields that their words read (write/refused-record.ts). */
  existing?: Row;
}

/** One rule's diagnostic of a reference the write sets: SQL answering JSON, null when the rule holds. */
export interface ReferenceDiagnostic {
  writeName: string;
  sql: Fragment;
}

export interface Write {
  resource: Resource;
  user: Principal;
  values: Values;
  /** Column → stored value. */
  row: Row;
  links: Link[];
  update: boolean;
  /** Refused already (by its shape, states or order): the statement only diagnoses its references. */
  refused: boolean;
  /** Diagnosed only, nothing written: a declared hook sees every error before the write (service.ts). */
  dryRun: boolean;
}

/** An id list as one parameter, so the statement's text is the same for any number of ids. */
export const intArray = (ids: readonly number[]): string => `{${ids.join(',')}}`;

/** The statement's parameters as one row: the record's id (updates), its column values as JSON, the link lists. */
function inputs(w: Write, id: number | undefined): Fragment {
  // the actor's settings are made as the parameters are read, before the write's row triggers fire
  const parts = [...(id === undefined ? [] : [frag('?::int as w_id', [id])]), frag('?::json as w_row', [JSON.stringify(w.row)]), actorSettings('w_a', w.user)];
  for (const l of w.links) parts.push(frag(`?::int[] as ${l.column}`, [intArray(l.ids)]));
  return frag(`${IN} as (select ${parts.map((p) => p.sql).join(', ')})`, parts.flatMap((p) => p.bindings));
}

/**
 * `json` (SQL of a JSON object) as the record `V` of the `columns` it sets, each typed as its
 * table's column is: json_populate_record's conversion, without building and filling every other
 * column of the table's row type (about 20 µs of PostgreSQL's time per PATCH of one column).
 */
export function typedValues(resource: Resource, columns: readonly string[], json: string): string {
  const types = columnTypes(resource);
  const typed = columns.map((c) => {
    const type = types.get(c);
    if (type === undefined) throw new Error(`${resource.key}: no column "${c}" in its table`);
    return `${q(c)} ${type}`;
  });
  return typed.length ? `json_to_record(${json}) as ${V}(${typed.join(', ')})` : `(select) ${V}`;
}

/** The values set, as `V` (only those set are read and written). */
export const valuesRow = (resource: Resource, columns: readonly string[]): Fragment => frag(`${V} as (select ${V}.* from ${IN}, ${typedValues(resource, columns, `${IN}.w_row`)})`);

/** `fk`'s value after the write, as SQL. */
function nextKey(w: Write, fk: { writeName: string; column: string }): string {
  if (fk.writeName in w.values) return `${V}.${q(fk.column)}`;
  return w.update ? `${OLD}.${q(fk.column)}` : 'null';
}

const visibleRef = (target: Resource, user: Principal): Fragment[] => {
  const p = accessPredicate(target, 'view', user, REF);
  return p ? [p] : [];
};

/** A record linked through `m` (`REF`, null when not found) that does not share the record's declared parent after the write. */
function strays(w: Write, m: ManyToManyRef): string {
  const local = sharedParentKey(w.resource, m);
  return local ? straysSql(m, REF, nextKey(w, local)) : 'false';
}

/** `ids` (SQL rows of a column `id`) that are not visible records of `m`'s target or do not share the parent, as `[{id, seen}]`; null when none. */
function linkDiagnostic(w: Write, m: ManyToManyRef, ids: string, idsBindings: readonly unknown[] = []): Fragment {
  const seen = joinFragments([frag(`${REF}.id = x.id`), ...visibleRef(m.target, w.user)], 'and');
  return frag(
    `(select json_agg(json_build_object('id', x.id, 'seen', ${REF}.id is not null) order by x.id) from ${ids} left join ${q(m.target.table)} ${REF} on ${seen.sql} where ${REF}.id is null or ${strays(w, m)})`,
    [...idsBindings, ...seen.bindings],
  );
}

/**
 * What is wrong with the references the write sets, per write name, as JSON (null when nothing):
 * a key's record is missing or invisible (`{missing}`) or would close a cycle (`{cycle}`); linked
 * records missing, invisible or under another parent (`[{id, seen}]`), also those already linked
 * when an update moves the record to a new parent. engine/write/reference.ts words it.
 */
export function referenceDiagnostics(w: Write): ReferenceDiagnostic[] {
  const found: ReferenceDiagnostic[] = [];
  for (const fk of w.resource.foreignKeys) {
    if (!(fk.writeName in w.values)) continue;
    const value = `${V}.${q(fk.column)}`;
    const seen = joinFragments([frag(`${REF}.id = ${value}`), ...visibleRef(fk.target, w.user)], 'and');
    const cycle = fk.spec.tree && w.update ? ` when ${closesCycle(w.resource, fk, value, `${OLD}.id`)} then json_build_object('cycle', ${value})` : '';
    const sql = `(case when ${value} is null then null when not exists (select 1 from ${q(fk.target.table)} ${REF} where ${seen.sql}) then json_build_object('missing', ${value})${cycle} end)`;
    found.push({ writeName: fk.writeName, sql: frag(sql, seen.bindings) });
  }
  for (const l of w.links) found.push({ writeName: l.m.writeName, sql: linkDiagnostic(w, l.m, `unnest(${IN}.${l.column}) x(id)`) });
  if (!w.update) return found;
  // a new parent: the records already linked must belong to it (checked when the key changes)
  for (const m of w.resource.manyToMany) {
    const local = sharedParentKey(w.resource, m);
    if (!local || m.writeName in w.values || !(local.writeName in w.values)) continue;
    const { table, sourceColumn, targetColumn } = m.spec;
    const moved = `${OLD}.${q(local.column)} is distinct from ${V}.${q(local.column)}`;
    found.push({ writeName: m.writeName, sql: linkDiagnostic(w, m, `(select j.${q(targetColumn)} as id from ${q(table)} j where j.${q(sourceColumn)} = ${OLD}.id and ${moved}) x`) });
  }
  return found;
}

/** Where a rule's diagnostic goes in the diagnostics object (no write name starts with `#`). */
const ruleKey = (index: number): string => `#rule${index}`;

/** A field's or key's value after the write, as SQL. */
function nextValue(w: Write, name: string): string {
  const fk = w.resource.foreignKeys.find((r) => r.writeName === name);
  if (fk) return nextKey(w, fk);
  const column = q(findField(w.resource, name)!.column!);
  if (name in w.values) return `${V}.${column}`;
  return w.update ? `${OLD}.${column}` : 'null';
}

/** The diagnostics of the rules that read other records (`noOverlap`), by ruleKey; none for a write refused already. */
function ruleDiagnostics(w: Write): ReferenceDiagnostic[] {
  if (w.refused) return [];
  return w.resource.rules.flatMap((rule, i) =>
    rule.kind === 'noOverlap' ? [{ writeName: ruleKey(i), sql: frag(overlapSql(w.resource, rule, (name) => nextValue(w, name), w.update ? `${OLD}.id` : 'null')) }] : [],
  );
}

/** The diagnostics as one JSON object, `{}` when every rule holds. */
export function diagnosticsObject(diagnostics: readonly ReferenceDiagnostic[]): Fragment {
  const pairs = diagnostics.map((d) => frag(`?::text, ${d.sql.sql}`, [d.writeName, ...d.sql.bindings]));
  return frag(`json_strip_nulls(json_build_object(${pairs.map((p) => p.sql).join(', ')}))`, pairs.flatMap((p) => p.bindings));
}

/** A state set on an update stays, or moves along a declared transition (engine/write/state.ts words a refusal). */
export function moveGuards(w: Write): Fragment[] {
  return stateFields(w.resource)
    .filter((f) => f.name in w.values)
    .map((f) => {
      const [to, from] = [`${V}.${q(f.column!)}`, `${OLD}.${q(f.column!)}`];
      const transitions = f.spec.type === 'state' ? f.spec.transitions : {};
      // the declared moves as constant pairs: no JSON parsed and unnested per write
      const pairs = Object.entries(transitions).flatMap(([a, targets]) => (targets ?? []).map((b) => `(${literal(a)}, ${literal(b)})`));
      return frag(`(${to} = ${from}${pairs.length ? ` or (${from}, ${to}) in (${pairs.join(', ')})` : ''})`);
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
export function stateLog(w: Write): Fragment[] {
  const fields = stateFields(w.resource).filter((f) => !w.update || f.name in w.values);
  return fields.map((f, i) => {
    const [to, from] = [`${NEW}.${q(f.column!)}`, `${OLD}.${q(f.column!)}`];
    // (an update's NEW and OLD hold one row per record changed: a batch changes many)
    const moved = w.update ? ` from ${NEW} join ${OLD} on ${OLD}.id = ${NEW}.id where ${to} is distinct from ${from}` : ` from ${NEW}`;
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

/** `with parts` answering either the written record's JSON (`list` is its select list) or, when it was not written, the diagnostics. */
const answered = (w: Write, parts: Fragment[], list: string): Fragment =>
  frag(
    `with ${parts.map((p) => p.sql).join(', ')} select json, null as diagnostics from (${jsonRows(list, `${NEW} ${ROW}`)}) a ` +
      `union all select null, d from ${DIAG} where ${w.refused ? 'true' : `d <> '{}'`}`,
    parts.flatMap((p) => p.bindings),
  );

/**
 * A create writes only when every diagnostic is null, and answers either the record's JSON or,
 * in the column `diagnostics`, what is wrong: a refused create is one round trip too.
 */
function createStatement(w: Write, list: string): Fragment {
  const table = q(w.resource.table);
  const columns = Object.keys(w.row).map(q);
  const found = diagnosticsObject([...referenceDiagnostics(w), ...ruleDiagnostics(w)]);
  const diagnostics = frag(`${DIAG} as (select ${found.sql}::text as d from ${V}, ${IN})`, found.bindings);
  // the one record written names itself for the change capture of the links written after it (audit/capture-function.ts)
  const named = w.links.length ? frag(`, set_config('${CREATED_RECORD}', ${createdRecord('?::text', 'id::text')}, true) as ${part('created')}`, [w.resource.key]) : frag('');
  const insert = frag(
    `${NEW} as (insert into ${table} (${columns.join(', ')}) select ${columns.map((c) => `${V}.${c}`).join(', ')} from ${V}, ${IN}, ${DIAG} where ${w.refused || w.dryRun ? 'false' : `${DIAG}.d = '{}'`} returning *${named.sql})`,
    named.bindings,
  );
  return answered(w, [inputs(w, undefined), valuesRow(w.resource, Object.keys(w.row)), diagnostics, insert, ...linkWrites(w), ...stateLog(w)], list);
}

/**
 * The locked row is the version the statement's snapshot shows. A concurrent writer that held the
 * lock and committed leaves a newer version, which the lock hands over while the statement's other
 * scans (links, references) still see the snapshot: a link diff against it would merge two sets.
 * Then the statement writes nothing and runs once more after locking the row first (lockedFirst).
 */
export const current = (resource: Resource): string => `${OLD}.w_xmin = (select s.xmin from ${q(resource.table)} s where s.id = ${OLD}.id)`;

/** If-Match: the locked record, as served, carries one of the tags. */
function tagged(resource: Resource, precondition: Precondition | undefined): Fragment {
  if (precondition === undefined || precondition === '*') return TRUE;
  const served = `(${jsonRows(selectList(resource), `${OLD} ${ROW}`)})`;
  return frag(`${entityTagSql(served)} in (select json_array_elements_text(?::json))`, [JSON.stringify(precondition)]);
}

/** The record `IN.w_id` as `OLD`, locked (a concurrent change is waited for and seen), if `user` sees it. */
function locked(resource: Resource, user: Principal): Fragment {
  const view = accessPredicate(resource, 'view', user, ROW);
  return frag(
    `${OLD} as (select ${ROW}.*, ${ROW}.xmin as w_xmin from ${q(resource.table)} ${ROW}, ${IN} where ${ROW}.id = ${IN}.w_id${view ? ` and ${view.sql}` : ''} for update of ${ROW})`,
    view?.bindings,
  );
}

/**
 * The first branches of a verdict on the locked record, in this order: not found, a
 * stale snapshot (the statement runs once more, the row locked first), 403, 412; the rules follow. A rule holds only when it is
 * true: one that is null (`owner_id = 5` of a record without owner) refuses, as in a WHERE.
 */
function lockedVerdict(resource: Resource, user: Principal, precondition: Precondition | undefined): Fragment {
  const change = accessPredicate(resource, 'change', user, OLD) ?? TRUE;
  const tag = tagged(resource, precondition);
  return frag(
    `when ${OLD}.id is null then '{"missing":true}' when (${current(resource)}) is not true then '{"stale":true}' ` +
      `when (${change.sql}) is not true then '{"forbidden":true}' when (${tag.sql}) is not true then '{"precondition":true}'`,
    [...change.bindings, ...tag.bindings],
  );
}

function updateStatement(w: Write, id: number, list: string, precondition: Precondition | undefined): Fragment {
  const table = q(w.resource.table);
  const sets = [...Object.keys(w.row).map((c) => `${q(c)} = ${V}.${q(c)}`), 'modified = current_timestamp'];
  const diagnosed = [...referenceDiagnostics(w), ...ruleDiagnostics(w)];
  const references = diagnosed.length ? diagnosticsObject(diagnosed) : undefined;
  const moves = joinFragments(moveGuards(w), 'and');
  const first = lockedVerdict(w.resource, w.user, precondition);
  // with no reference or rule to diagnose, their object is the constant '{}' (a lateral less: about 30 µs of PostgreSQL's time per PATCH);
  // a refusal by the rules carries the fields of the record against which the process words states, order and parents as the checks do
  const [refs, referencesRefuse, lateral] = references
    ? ['r.d', ` or r.d::text <> '{}'`, frag(` cross join lateral (select ${references.sql} as d) r`, references.bindings)]
    : [`'{}'::json`, '', frag('')];
  const verdict = frag(
    `${DIAG} as (select case ${first.sql} ` +
      `when ${w.refused} or (${moves.sql}) is not true${referencesRefuse} then json_build_object('references', ${refs}, 'existing', ${refusedRecord(w.resource)})::text ` +
      `else '{}' end as d from (select 1) w_one left join ${OLD} on true cross join ${V} cross join ${IN}${lateral.sql})`,
    [...first.bindings, ...moves.bindings, ...lateral.bindings],
  );
  const write = frag(`${NEW} as (update ${table} ${ROW} set ${sets.join(', ')} from ${OLD}, ${V}, ${IN}, ${DIAG} where ${ROW}.id = ${OLD}.id and ${DIAG}.d = '{}'${w.dryRun ? ' and false' : ''} returning ${ROW}.*)`);
  const parts = [inputs(w, id), locked(w.resource, w.user), valuesRow(w.resource, Object.keys(w.row)), verdict, write, ...linkWrites(w), ...stateLog(w)];
  return answered(w, parts, list);
}

/** A delete of record `id`: answers its verdict, `{}` when it was deleted, `{"held": …}` when protecting keys still point at it. */
function deleteStatement(resource: Resource, user: Principal, id: number, precondition: Precondition | undefined, dryRun = false): Fragment {
  const first = lockedVerdict(resource, user, precondition);
  const held = stillReferencedSql(resource, `array[${OLD}.id]`) ?? 'null::json';
  const verdict = frag(
    `${DIAG} as (select case ${first.sql} when h.held is not null then json_build_object('held', h.held)::text else '{}' end as d ` +
      `from (select 1) w_one left join ${OLD} on true cross join lateral (select ${held} as held) h)`,
    first.bindings,
  );
  const table = q(resource.table);
  const gone = frag(`${part('gone')} as (delete from ${table} ${ROW} using ${OLD}, ${DIAG} where ${ROW}.id = ${OLD}.id and ${DIAG}.d = '{}'${dryRun ? ' and false' : ''})`);
  const actor = actorSettings('w_a', user);
  const input = frag(`${IN} as (select ?::int as w_id, ${actor.sql})`, [id, ...actor.bindings]);
  const parts = [input, locked(resource, user), verdict, gone];
  return frag(`with ${parts.map((p) => p.sql).join(', ')} select d as diagnostics from ${DIAG}`, parts.flatMap((p) => p.bindings));
}

/** Record `id` locked, its verdict (as an update's first branches) and the record as served. */
function lockStatement(resource: Resource, user: Principal, id: number, precondition: Precondition | undefined): Fragment {
  const first = lockedVerdict(resource, user, precondition);
  const served = jsonRows(selectList(resource), `${OLD} ${ROW}`);
  const parts = [frag(`${IN} as (select ?::int as w_id)`, [id]), locked(resource, user)];
  return frag(
    `with ${parts.map((p) => p.sql).join(', ')} select case ${first.sql} else '{}' end as diagnostics, (${served}) as json from (select 1) w_one left join ${OLD} on true`,
    [...parts.flatMap((p) => p.bindings), ...first.bindings],
  );
}

/** Throws 404, 403 or 412 as `d` says; false for a stale snapshot, true when the record may be written. */
function refusedLocked(d: LockedDiagnostics): boolean {
  if (d.missing) throw notFound();
  if (d.stale) return false;
  if (d.forbidden) throw permissionDenied();
  if (d.precondition) throw preconditionFailed();
  return true;
}

/** The statement's one row: the written record's JSON, or its diagnostics. */
export interface Answer {
  json?: string | null;
  diagnostics?: string | null;
}

const isStale = (answer: Answer | undefined): boolean => typeof answer?.diagnostics === 'string' && (JSON.parse(answer.diagnostics) as LockedDiagnostics).stale === true;

/** Locks record `id` if `user` sees it, before a statement that must not read an older version than the one it locks. */
function lockedFirst(resource: Resource, user: Principal, id: number): Fragment {
  const view = accessPredicate(resource, 'view', user, ROW);
  return frag(`select 1 from ${q(resource.table)} ${ROW} where ${ROW}.id = ?${view ? ` and ${view.sql}` : ''} for update of ${ROW}`, [id, ...(view?.bindings ?? [])]);
}

/** Statement shapes kept per resource (sets of fields written, per user): a cache, the oldest dropped first. */
const SHAPES_KEPT = 500;

/** A resource's creates and updates as one statement each, where its write path allows. */
export class StatementWrites {
  private readonly orderRules: Extract<RecordRule, { kind: 'order' }>[];
  /** Write names of foreign keys and links. */
  private readonly references: Set<string>;
  /** What an update's statement diagnoses: references and states. */
  private readonly diagnosed: Set<string>;
  /** Select lists of written records, by which links the write sets. */
  private readonly lists = new Map<string, string>();
  /** Statements by shape and user: their text and the values after their parameters (shapedStatement). */
  private readonly shaped = new Map<string, { sql: string; rest: readonly unknown[] }>();
  /** The texts by shape alone, so that every user's entry of a shape holds the one string. */
  private readonly texts = new Map<string, string>();
  /** Whether every access rule the statements read is declared (visibility.ts declaredAccess). */
  private readonly declaredAccess: boolean;

  constructor(readonly resource: Resource) {
    this.orderRules = resource.rules.filter((r) => r.kind === 'order');
    this.references = new Set([...resource.foreignKeys, ...resource.manyToMany].map((r) => r.writeName));
    this.diagnosed = new Set([...this.references, ...stateFields(resource).map((f) => f.name)]);
    this.declaredAccess = [resource, ...[...resource.foreignKeys, ...resource.manyToMany].map((r) => r.target)].every(declaredAccess);
  }

  /** The new record's JSON, written through `db` (a transaction the write joins, or the pool); throws its refusal. */
  async create(db: Db, user: Principal, { values, errors }: Validated): Promise<string> {
    const checked = this.createChecks(values, errors);
    const refused = checked.has();
    // refused: only the references are diagnosed (nothing else is hashed or cast in vain)
    const sent = refused ? Object.fromEntries(Object.entries(values).filter(([name]) => this.references.has(name) && !checked.has(name))) : values;
    const w = await this.write(user, sent, false, refused);
    const sql = this.shapedStatement(w, undefined, undefined, () => createStatement(w, this.listOf(w)));
    const answer = (await this.attempt(() => this.answer(db, sql)))!;
    if (typeof answer.json === 'string') return answer.json;
    // every error at once, in order: shape, references, states and order
    const diagnostics = JSON.parse(answer.diagnostics!) as ReferenceDiagnostics;
    const all = errors.with(referenceErrors(this.resource, sent, diagnostics, errors), checked);
    this.checkRules(all, values, undefined, diagnostics, false);
    this.refuse(all);
  }

  /** The errors of the checks the process makes on a create of `values` (states, order), skipping fields `errors` (the shape's) refused. */
  private createChecks(values: Values, errors: FieldErrorCollector): FieldErrorCollector {
    const checked = errors.with();
    checkStates({ errors: checked, existing: undefined }, this.resource, values);
    for (const rule of this.orderRules) checkOrder({ errors: checked, existing: undefined }, this.resource, rule, values);
    return checked;
  }

  /** Whether a create of `values` passes the checks the process makes (states, order). */
  createsInOrder(values: Values): boolean {
    return !this.createChecks(values, new FieldErrorCollector()).has();
  }

  /**
   * The changed record's JSON, written through `db`; throws its refusal. With order rules the
   * statement runs between BEGIN and COMMIT (a savepoint inside a transaction), and the rules compare
   * the new values with the stored ones (the record it answers) before the COMMIT.
   */
  async update(db: Db, user: Principal, id: number, { values, errors }: Validated, precondition?: Precondition): Promise<string> {
    const refused = errors.has();
    // refused by its shape: the statement diagnoses the rest (the record, its references and states), without the refused fields
    const sent = refused ? Object.fromEntries(Object.entries(values).filter(([name]) => this.diagnosed.has(name) && !errors.has(name))) : values;
    const w = await this.write(user, sent, true, refused);
    const sql = this.shapedStatement(w, id, precondition, () => updateStatement(w, id, this.listOf(w), precondition));
    const ordered = !this.orderRules.length || refused ? undefined : (written: Row) => this.refuseOutOfOrder(values, written);
    let answer = await this.attempt(() => this.run(db, sql, ordered));
    // a stale snapshot: once more after locking the row, so the statement's snapshot is taken with the lock held
    if (isStale(answer)) answer = await this.attempt(() => this.run(db, sql, ordered, lockedFirst(this.resource, user, id)));
    if (typeof answer?.json === 'string') return answer.json;
    return this.refusedUpdate(values, errors, sent, JSON.parse(answer!.diagnostics!) as UpdateDiagnostics);
  }

  /**
   * Every error a write of `values` would meet (shape, references, states, rules), in the order a
   * refusal names them, with nothing written: a declared hook sees them before the write. An
   * update's record is `existing`, locked and answered (404, 403, 412) already.
   */
  async diagnose(trx: Knex.Transaction, user: Principal, { values, errors }: Validated, existing?: Row): Promise<FieldErrorCollector> {
    const update = existing !== undefined;
    const refused = errors.has();
    const sent = refused ? Object.fromEntries(Object.entries(values).filter(([name]) => this.diagnosed.has(name) && !errors.has(name))) : values;
    const w = await this.write(user, sent, update, refused, true);
    const sql = update ? updateStatement(w, existing.id as number, this.listOf(w), undefined) : createStatement(w, this.listOf(w));
    const answer = await this.attempt(() => this.answer(trx, sql));
    const d = answer?.diagnostics ? (JSON.parse(answer.diagnostics) as UpdateDiagnostics & ReferenceDiagnostics) : {};
    const found = (update ? d.references : d) ?? {};
    const all = errors.with(referenceErrors(this.resource, sent, found as ReferenceDiagnostics, errors, existing));
    checkStates({ errors: all, existing }, this.resource, values);
    this.checkRules(all, values, existing, found as ReferenceDiagnostics, true);
    return all;
  }

  /** The record as served, locked, when `user` may change it and `precondition` holds (else 404, 403, 412), for checks in the process. */
  async lockServed(trx: Knex.Transaction, user: Principal, id: number, precondition: Precondition | undefined): Promise<Row> {
    const sql = lockStatement(this.resource, user, id, precondition);
    let answer = (await this.attempt(() => this.answer(trx, sql)))!;
    // the lock is held now: the next statement's snapshot shows the version it locked
    if (isStale(answer)) answer = (await this.attempt(() => this.answer(trx, sql)))!;
    if (!refusedLocked(JSON.parse(answer.diagnostics!) as LockedDiagnostics)) throw new Error(`${this.resource.key} ${id}: stale with its row locked`);
    return JSON.parse(answer.json!) as Row;
  }

  /**
   * The statement's answer, in its own transaction; `ordered` checks the written record before the
   * COMMIT (order rules compare the new values with the stored ones), `lock` runs first.
   */
  private async run(db: Db, sql: Fragment, ordered?: (written: Row) => void, lock?: Fragment): Promise<Answer | undefined> {
    if (!ordered && !lock) return this.answer(db, sql);
    const steps = async (trx: Db) => {
      if (lock) await prepared(trx, lock);
      const written = await this.answer(trx, sql);
      if (ordered && typeof written?.json === 'string') ordered(JSON.parse(written.json) as Row);
      return written;
    };
    // inside a transaction already, which a refusal rolls back whole: no savepoint needed
    return (db as Knex.Transaction).isTransaction ? steps(db) : db.transaction(steps);
  }

  /**
   * Throws the answer to an update the statement did not make, in order: 404, 403,
   * 412, then every field's errors (shape, references, states, order).
   */
  private refusedUpdate(values: Values, errors: FieldErrorCollector, sent: Values, d: UpdateDiagnostics): never {
    if (!refusedLocked(d)) throw new Error(`${this.resource.key}: stale with its row locked`);
    const existing = d.existing!;
    const checked = errors.with(referenceErrors(this.resource, sent, d.references ?? {}, errors, existing));
    checkStates({ errors: checked, existing }, this.resource, values);
    this.checkRules(checked, values, existing, d.references ?? {}, true);
    this.refuse(checked);
  }

  /**
   * Files the rules' errors in declaration order: `order` compared in the process (`orders`: those
   * too; a create compared them before its statement), `noOverlap` from its diagnostic, as the check
   * path files them, only while nothing else is wrong.
   */
  private checkRules(errors: FieldErrorCollector, values: Values, existing: Row | undefined, found: ReferenceDiagnostics, orders: boolean): void {
    const c = { errors, existing };
    this.resource.rules.forEach((rule, i) => {
      if (rule.kind === 'order') {
        if (orders) checkOrder(c, this.resource, rule, values);
      } else if (!errors.has() && found[ruleKey(i)]) errors.add(rule.start, overlaps(this.resource, rule, found[ruleKey(i)] as unknown as Overlap));
    });
  }

  /** Throws `errors`: the SQL guards and their words are two forms of one rule, so a refusal without words is a bug. */
  private refuse(errors: FieldErrorCollector): never {
    if (!errors.has()) throw new Error(`${this.resource.key}: the statement refused a write its rules admit`);
    throw new ValidationError(errors.errors);
  }

  /**
   * Locks the scope record of each `noOverlap` rule, as it is after the write (an update's record
   * locked first, so its scope cannot move meanwhile): writers of one scope take turns, and the
   * statement that follows sees every period committed before it.
   */
  async lockScopes(trx: Knex.Transaction, user: Principal, id: number | undefined, values: Values): Promise<void> {
    if (id !== undefined) await prepared(trx, lockedFirst(this.resource, user, id));
    for (const rule of this.resource.rules) {
      if (rule.kind !== 'noOverlap') continue;
      const fk = findForeignKey(this.resource, rule.scope)!;
      const scope = fk.writeName in values ? values[fk.writeName] : null;
      await prepared(trx, frag(`select 1 from ${q(fk.target.table)} where id = coalesce(?::int, (select ${q(fk.column)} from ${q(this.resource.table)} where id = ?::int)) for update`, [scope, id ?? null]));
    }
  }

  /** Deletes record `id` through `db` in one statement, or throws its refusal (404, 403, 412, 409 naming what holds it); `dryRun`: only the refusal. */
  async delete(db: Db, user: Principal, id: number, precondition?: Precondition, dryRun = false): Promise<void> {
    const sql = deleteStatement(this.resource, user, id, precondition, dryRun);
    const label = `${this.resource.name} ${id}`;
    let answer = await this.attempt(() => this.run(db, sql), label);
    if (isStale(answer)) answer = await this.attempt(() => this.run(db, sql, undefined, lockedFirst(this.resource, user, id)), label);
    const d = JSON.parse(answer!.diagnostics!) as LockedDiagnostics & { held?: StillReferenced };
    if (!refusedLocked(d)) throw new Error(`${this.resource.key} ${id}: stale with its row locked`);
    if (d.held) throw conflict(stillReferenced(this.resource, d.held));
  }

  /** Throws the order rules' errors for `values` over the record as written: only they can refuse a written update. */
  private refuseOutOfOrder(values: Values, written: Row): void {
    const c = { errors: new FieldErrorCollector(), existing: written };
    for (const rule of this.orderRules) checkOrder(c, this.resource, rule, values);
    c.errors.throwIfAny();
  }

  /** What the statements write for `values`: the stored row and the links' sorted ids. */
  async write(user: Principal, values: Values, update: boolean, refused = false, dryRun = false): Promise<Write> {
    const row = { ...(await rowValues(this.resource, values)), ...(update ? {} : { created_by: user.id }) };
    const links = this.resource.manyToMany
      .filter((m) => m.writeName in values)
      .map((m, i) => ({ m, ids: uniqueIds(values[m.writeName]).sort((a, b) => a - b), column: `w_l${i}` }));
    return { resource: this.resource, user, values, row, links, update, refused, dryRun };
  }

  /**
   * `build`'s statement, built once per shape and user: the access rules it reads are declared ones
   * (visibility.ts), whose text is the same for every user but superusers (who read none) and binds
   * the user's id, so the text and every value after the parameters (inputs: the row, the links,
   * the actor) follow from whether it creates or updates, which fields it sets, whether it was
   * refused, and the user (the rules' and the state log's id). Built per write, the 3 kB text cost a
   * create about 50 µs of the process's time (its building, and hashing each new string again to
   * name its prepared statement); taken from here, 20 (the parameters still built). Users' entries
   * of one shape share its text, so a cache full of users holds small entries. Statements comparing
   * entity tags (If-Match), those only diagnosing and those of resources reaching an engine table's
   * rule (code) are built each time.
   */
  private shapedStatement(w: Write, id: number | undefined, precondition: Precondition | undefined, build: () => Fragment): Fragment {
    if (!this.declaredAccess || w.dryRun || (precondition !== undefined && precondition !== '*')) return build();
    const shape = `${w.update}|${w.user.isSuperuser}|${w.refused}|${Object.keys(w.row).join()}|${Object.keys(w.values).join()}`;
    const key = `${w.user.id}|${shape}`;
    const input = inputs(w, id);
    let shaped = this.shaped.get(key);
    if (shaped === undefined) {
      const built = build();
      // the parameters must be the statement's first part, so that the rest's values follow theirs
      if (!built.sql.startsWith(`with ${input.sql}`) || input.bindings.some((b, i) => built.bindings[i] !== b)) throw new Error(`${this.resource.key}: a statement does not begin with its parameters`);
      let sql = this.texts.get(shape);
      if (sql !== built.sql) {
        if (this.texts.size >= SHAPES_KEPT) this.texts.delete(this.texts.keys().next().value!);
        this.texts.set(shape, (sql = built.sql));
      }
      if (this.shaped.size >= SHAPES_KEPT) this.shaped.delete(this.shaped.keys().next().value!);
      this.shaped.set(key, (shaped = { sql, rest: built.bindings.slice(input.bindings.length) }));
    }
    return frag(shaped.sql, [...input.bindings, ...shaped.rest]);
  }

  private listOf(w: Write): string {
    const key = `${w.update}:${w.links.map((l) => l.m.name).join()}`;
    let list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, (list = writtenList(w)));
    return list;
  }

  /** The statement's one row: the record's JSON, or its diagnostics. */
  async answer(db: Db, sql: Fragment): Promise<Answer | undefined> {
    return rowsOf(await prepared(db, sql))[0] as Answer | undefined;
  }

  /** `write`'s answer, database failures mapped to API errors (`deleting` names what a delete removes). */
  async attempt<T>(write: () => Promise<T>, deleting?: string): Promise<T> {
    try {
      return await write();
    } catch (err) {
      throw mapDatabaseError(err, deleting);
    }
  }
}
