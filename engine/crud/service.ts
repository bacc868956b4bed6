/**
 * The six actions of spec 4.1 for one resource (plus its state log), each a short composition of
 * plan → check → SQL → record. Everything derived from the declaration (filters, ordering,
 * validators) is prepared once, when the service is built at start-up.
 */
import type { Knex } from 'knex';
import type { Ajv } from 'ajv';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { setActor } from '../audit/actor.js';
import { checkPrivileges, type PrivilegeCheck } from '../access/privileges.js';
import { endSessions } from '../auth/sessions.js';
import { checkGrants } from '../access/grants.js';
import { FieldErrorCollector, notFound, type FieldErrors } from '../errors.js';
import type { WriteOperation } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';
import type { Registry } from '../registry/registry.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import { jsonRecords, jsonTexts, ROW } from '../storage/serialise.js';
import { prepared } from '../storage/statements.js';
import { frag, type Fragment } from '../storage/sql.js';
import { normaliseBody, type Validated } from './body.js';
import { checkReferences, checkRules, checkStates, rowsOf, type CheckContext, type Row } from './checks.js';
import { filtersOf, type Filter } from './filters.js';
import { WriteHooks, type Write } from './hooks.js';
import { lockVisible, refuseIfProtected, refuseUnchangeable } from './guards.js';
import type { Key, OrderColumn } from './keyset.js';
import { listQuery, type PageLinks } from './list-page.js';
import { orderableColumns, planList, searchColumns } from './list-plan.js';
import { insertRecord, updateRecord, type Db } from './store.js';
import { compileValidators, type ResourceValidators } from './validator.js';
import { StatementWrites } from './write-statement.js';

/** Rows a list cursor fetches per round trip: most lists are one, a long one streams in these steps. */
const LIST_BATCH = 1000;

export interface ListSettings {
  /** MAX_LIST_ROWS: the most records one list answer holds (undefined: no cap). */
  maxRows?: number;
}

/** A list answer: its records, streamed, and what the paging headers say. */
export interface ListAnswer {
  records: AsyncIterable<string>;
  /** `count=true`: the number of matching records. */
  total: string | undefined;
  /** Known once the first record has been read (or the records have ended). */
  links(): PageLinks;
}

const throwNotFound = (): never => {
  throw notFound();
};

export class ResourceService {
  readonly filters: readonly Filter[];
  readonly orderable: Map<string, OrderColumn>;
  readonly search: string[];
  private readonly validators: ResourceValidators;
  /** Password fields: changing one ends the user's other sessions. */
  private readonly credentials: string[];
  /** Creates and updates in one statement, where the declaration allows; the check path answers the rest. */
  readonly statements: StatementWrites;

  constructor(
    readonly resource: Resource,
    private readonly db: Knex,
    ajv: Ajv,
    /** Permission names to check permission-list fields against; all resources for escalation checks and hooks' reads. */
    private readonly registry: Pick<Registry, 'permissionNames' | 'resources' | 'get'>,
    private readonly listing: ListSettings = {},
  ) {
    this.filters = filtersOf(resource);
    this.orderable = orderableColumns(resource);
    this.search = searchColumns(resource);
    this.validators = compileValidators(ajv, resource);
    this.credentials = resource.fields.filter((f) => f.spec.type === 'password').map((f) => f.name);
    this.statements = new StatementWrites(resource, db, registry.resources, this.credentials);
  }

  /** What the escalation checks need for `user` inside `trx`. */
  privileges(trx: Knex.Transaction, user: Principal, errors = new FieldErrorCollector()): PrivilegeCheck {
    return { trx, all: this.registry.resources, user, errors };
  }

  /** The declared hooks of one write of this resource. */
  hooks(write: Write): WriteHooks {
    return new WriteHooks(this.resource, (key) => this.registry.get(key), write);
  }

  get hasStates(): boolean {
    return this.resource.fields.some((f) => f.spec.type === 'state');
  }

  private visible(user: Principal): Fragment[] {
    const p = accessPredicate(this.resource, 'view', user, ROW);
    return p ? [p] : [];
  }

  /**
   * The matching records as JSON texts, read from a cursor as the consumer asks for them, so a list
   * of any length takes a constant amount of memory. Planning errors throw before any query runs;
   * the links are known once the first record has been read.
   */
  async list(user: Principal, query: Record<string, string>): Promise<ListAnswer> {
    const plan = planList(this.resource, this.filters, this.orderable, this.search, query);
    const page = listQuery(this.resource, this.visible(user), plan, this.listing.maxRows);
    const total = page.count && (rowsOf(await this.db.raw(page.count.sql, page.count.bindings as Knex.RawBinding[]))[0]!.n as string);
    let edge: Key[] = [];
    const rows = this.db.raw(page.records.sql, page.records.bindings as Knex.RawBinding[]).stream({ batchSize: LIST_BATCH, highWaterMark: LIST_BATCH });
    const records = jsonTexts(rows as AsyncIterable<{ json: string; edge?: string }>, (first) => (edge = first.edge ? (JSON.parse(first.edge) as Key[]) : []));
    return { records, total, links: () => page.links(edge) };
  }

  /** The record as its JSON text; 404 when it does not exist or the caller cannot see it. */
  async retrieve(user: Principal, id: number): Promise<string> {
    return (await this.fetchJson(this.db, id, this.visible(user))) ?? throwNotFound();
  }

  private async fetchJson(db: Db, id: number, where: Fragment[] = []): Promise<string | undefined> {
    const rows = rowsOf(await prepared(db, jsonRecords(this.resource, [frag(`${ROW}.id = ?`, [id]), ...where])));
    return rows[0]?.json as string | undefined;
  }

  /**
   * The record as served, its row locked for the transaction; 404 if invisible, 403 if visible but
   * not changeable. Checks compare new values with this served form, so both are alike.
   */
  private async lockForChange(trx: Knex.Transaction, user: Principal, id: number): Promise<Row> {
    const [row] = await lockVisible(trx, this.resource, user, [id]);
    if (!row) throw notFound();
    await refuseUnchangeable(trx, this.resource, user, [id]);
    return row;
  }

  /** Shape errors are collected, not thrown: the database checks add theirs, then all are reported at once. */
  validate(body: unknown, mode: 'create' | 'patch'): Validated {
    const { values, errors } = normaliseBody(this.resource, body);
    const collector = new FieldErrorCollector();
    const merge = (e: FieldErrors) => Object.entries(e).forEach(([k, msgs]) => msgs.forEach((m) => collector.add(k, m)));
    merge(errors);
    merge(this.validators[mode](values));
    this.checkPermissionNames(values, collector);
    return { values, errors: collector };
  }

  private checkPermissionNames(values: Record<string, unknown>, errs: FieldErrorCollector): void {
    for (const f of this.resource.fields) {
      if (f.spec.type !== 'permissions' || !Array.isArray(values[f.name])) continue;
      for (const name of values[f.name] as string[]) if (!this.registry.permissionNames.has(name)) errs.add(f.name, `Unknown permission "${name}".`);
    }
  }

  /** Checks `values` and stores them: a new record, or a change of `existing` (locked); batch actions call it per record. */
  async write(
    user: Principal,
    { values, errors }: Validated,
    existing: Row | undefined,
    trx: Knex.Transaction,
    operation: Exclude<WriteOperation, 'delete'>,
  ): Promise<number> {
    const c: CheckContext = { trx, user, errors, existing };
    const hooks = this.hooks({ trx, operation, principal: user, values, before: existing, errors });
    await checkPrivileges(this.privileges(trx, user, errors), this.resource, values, existing);
    await checkReferences(c, this.resource, values);
    const moves = checkStates(c, this.resource, values);
    await checkRules(c, this.resource, values);
    await hooks.validate();
    await hooks.beforeWrite();
    const id = existing ? (existing.id as number) : await insertRecord(trx, this.resource, values, user, moves);
    if (existing) await updateRecord(trx, this.resource, id, values, user, moves);
    await checkGrants(trx, this.registry.resources, user, this.resource, id, values, !existing);
    if (existing && this.credentials.some((name) => name in values)) await endSessions(trx, id, user.sessionId);
    await hooks.afterWrite(id);
    return id;
  }

  /** Deletes `rows` (locked, visible and changeable) after their privileges, `protect` references and hooks allow it; batch deletes call it too. */
  async remove(trx: Knex.Transaction, user: Principal, rows: readonly Row[]): Promise<void> {
    const ids = rows.map((r) => r.id as number);
    for (const row of rows) await checkPrivileges(this.privileges(trx, user), this.resource, {}, row);
    await refuseIfProtected(trx, this.resource, ids);
    const hooks = rows.map((before) => this.hooks({ trx, operation: 'delete', principal: user, values: {}, before, errors: new FieldErrorCollector() }));
    for (const h of hooks) {
      await h.validate();
      await h.beforeWrite();
    }
    await trx(this.resource.table).whereIn('id', ids).delete();
    for (const [i, h] of hooks.entries()) await h.afterWrite(ids[i]!);
  }

  /** Runs `work` in one transaction as the request's actor (audit/actor.ts), database failures mapped to API errors (`deleting` names what a delete removes). */
  async transaction<T>(work: (trx: Knex.Transaction) => Promise<T>, deleting?: string): Promise<T> {
    try {
      return await this.db.transaction(async (trx) => {
        await setActor(trx);
        return work(trx);
      });
    } catch (err) {
      throw mapDatabaseError(err, deleting);
    }
  }

  /** One statement when it can say yes; otherwise (or when it says no) the checks, which answer exactly. */
  async create(user: Principal, body: unknown): Promise<string> {
    const input = this.validate(body, 'create');
    const written = await this.statements.create(user, input);
    if (written !== undefined) return written;
    return this.transaction(async (trx) => (await this.fetchJson(trx, await this.write(user, input, undefined, trx, 'create')))!);
  }

  /** As create: the statement first, then the checks, which answer 404 and 403 before any body error, as always. */
  async update(user: Principal, id: number, body: unknown, partial: boolean): Promise<string> {
    const mode = partial ? 'patch' : 'create';
    const input = this.validatedEarly(body, mode);
    const written = input && (await this.statements.update(user, id, input));
    if (written !== undefined) return written;
    return this.transaction(async (trx) => {
      const existing = await this.lockForChange(trx, user, id);
      return (await this.fetchJson(trx, await this.write(user, input ?? this.validate(body, mode), existing, trx, partial ? 'update' : 'replace')))!;
    });
  }

  /** The body validated before the record is looked at; undefined when it is refused outright, which the checks answer in their turn. */
  private validatedEarly(body: unknown, mode: 'create' | 'patch'): Validated | undefined {
    try {
      return this.validate(body, mode);
    } catch {
      return undefined;
    }
  }

  async destroy(user: Principal, id: number): Promise<void> {
    const label = `${this.resource.name} ${id}`;
    await this.transaction(async (trx) => this.remove(trx, user, [await this.lockForChange(trx, user, id)]), label);
  }

  /** The recorded state moves of a visible record, oldest first. */
  async stateLog(user: Principal, id: number): Promise<Row[]> {
    await this.retrieve(user, id);
    return (await this.db('state_changes')
      .select(
        'field',
        'from_state as from',
        'to_state as to',
        'changed_by',
        this.db.raw(`to_char(changed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as changed_at`),
      )
      .where({ resource: this.resource.key, record_id: id })
      .orderBy('id')) as Row[];
  }
}
