/**
 * The six actions of spec 4.1 for one resource (plus its state log), each a short composition of
 * plan → check → SQL → record. Everything derived from the declaration (filters, ordering,
 * validators) is prepared once, when the service is built at start-up.
 */
import type { Knex } from 'knex';
import type { Ajv } from 'ajv';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { fieldMask, refuseUnwritable, unmaskedPrecondition } from '../access/field-permissions.js';
import { resourceView, type ResourceView } from '../describe/view.js';
import { setActor } from '../audit/actor.js';
import { checkPrivileges, guardsRights, type PrivilegeCheck } from '../access/privileges.js';
import { endSessions } from '../auth/sessions.js';
import { carriesAccess, checkGrants } from '../access/grants.js';
import { FieldErrorCollector, notFound, type FieldErrors } from '../errors.js';
import type { WriteOperation } from '../declare/index.js';
import { DEFAULT_REPORTS, type ReportSettings } from '../config.js';
import type { Resource } from '../registry/resource.js';
import type { Registry } from '../registry/registry.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import { jsonRecords, recordById, ROW } from '../storage/serialise.js';
import { ReadRouting } from '../storage/replicas.js';
import type { Precondition } from '../storage/entity-tag.js';
import { prepared } from '../storage/statements.js';
import { frag, type Fragment } from '../storage/sql.js';
import { probedPieces, textPieces } from '../storage/text-pieces.js';
import { isObject, normaliseBody, type Validated } from './body.js';
import { BatchStatement, type BatchInput } from './batch-statement.js';
import { filtersOf, type Filter } from './filters.js';
import { WriteHooks, type Write } from './hooks.js';
import { createMany } from './create-many.js';
import type { OrderColumn } from './keyset.js';
import { listQuery, type ListHead, type PageLinks } from './list-page.js';
import { orderableColumns, planList } from './list-plan.js';
import { RecordShapes, selectList } from './record-shapes.js';
import { rowsOf, type Row } from './rows.js';
import { type Db } from './store.js';
import { compileValidators, type ResourceValidators } from './validator.js';
import { StatementWrites } from './write-statement.js';

export interface ServiceSettings {
  /** MAX_LIST_ROWS: the most records one list answer holds (undefined: no cap). */
  maxRows?: number;
  /** Where lists and details read (replicas); default: the primary. */
  reads?: ReadRouting;
  /** TZ and AGGREGATE_MAX_GROUPS (engine/reporting); default: DEFAULT_REPORTS. */
  reports?: ReportSettings;
}

/** A list answer: its records, streamed as pieces (records joined by commas), and what the paging headers say. */
export interface ListAnswer {
  records: AsyncIterable<string>;
  /** `count=true`: the number of matching records; known once the first record has been read. */
  total(): string | undefined;
  /** Known once the first record has been read (or the records have ended). */
  links(): PageLinks;
}


const throwNotFound = (): never => {
  throw notFound();
};

export class ResourceService {
  readonly filters: readonly Filter[];
  readonly orderable: Map<string, OrderColumn>;
  private readonly validators: ResourceValidators;
  /** Password fields: changing one ends the user's other sessions. */
  private readonly credentials: string[];
  /** Creates, updates and deletes in one statement each. */
  readonly statements: StatementWrites;
  /** Batch actions in one statement. */
  private readonly batches: BatchStatement;
  /** What the process checks around a non-superuser's statement, in its transaction: escalation (privileges.ts), access a record carries (grants.ts). */
  private readonly guards: { privileges: boolean; grants: boolean };
  /** `noOverlap` rules: their scope records are locked before the statement, in its transaction. */
  private readonly scoped: boolean;
  /** Declared hooks: they see every error the statement would answer (a dry run of it) before the write. */
  private readonly hooked: boolean;
  /** Where lists, details and aggregates read. */
  readonly reads: ReadRouting;
  readonly reports: ReportSettings;
  /** `fields=` and `expand=` of lists and details. */
  readonly shapes: RecordShapes;
  /** What readers are shown: the OpenAPI document, MCP and the admin app render it. */
  readonly view: ResourceView;

  constructor(
    readonly resource: Resource,
    /** Read through `db`, which joins the request's transaction when it has one. */
    private readonly pool: Knex,
    ajv: Ajv,
    /** Permission names to check permission-list fields against; all resources for escalation checks and hooks' reads. */
    private readonly registry: Pick<Registry, 'permissionNames' | 'resources' | 'get'>,
    private readonly listing: ServiceSettings = {},
  ) {
    this.reads = listing.reads ?? new ReadRouting(pool);
    this.reports = listing.reports ?? DEFAULT_REPORTS;
    this.filters = filtersOf(resource);
    this.orderable = orderableColumns(resource);
    this.validators = compileValidators(ajv, resource);
    this.credentials = resource.fields.filter((f) => f.spec.type === 'password').map((f) => f.name);
    this.statements = new StatementWrites(resource);
    this.batches = new BatchStatement(resource);
    this.guards = { privileges: guardsRights(resource), grants: carriesAccess(registry.resources, resource) };
    this.scoped = resource.rules.some((r) => r.kind === 'noOverlap');
    this.hooked = resource.declaration.hooks !== undefined;
    this.shapes = new RecordShapes(resource);
    this.view = resourceView(resource, this.filters, this.orderable);
  }

  /** The pool, or the transaction `user`'s writes join (Principal.transaction). */
  private db(user: Principal): Knex {
    return user.transaction ?? this.pool;
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

  /** The record rule of `user` as conditions on `ROW` (none for who sees everything). */
  visible(user: Principal): Fragment[] {
    const p = accessPredicate(this.resource, 'view', user, ROW);
    return p ? [p] : [];
  }

  /**
   * The matching records as JSON texts, read as the consumer asks for them, so a list of any length
   * takes a constant amount of memory. Planning errors throw before any query runs;
   * the links are known once the first record has been read.
   */
  async list(user: Principal, query: Record<string, string>): Promise<ListAnswer> {
    const plan = planList(this.resource, this.filters, this.orderable, fieldMask(this.resource, user), query, this.shapes);
    const page = listQuery(this.resource, this.visible(user), plan, this.listing.maxRows, plan.shape && selectList(plan.shape, user));
    let head: ListHead = { edge: [], total: undefined };
    const first = (columns: readonly (string | null)[]) => (head = page.head(columns));
    const records = this.reads.stream((db) => (page.probe ? probedPieces(db, page.probe, page.records, first) : textPieces(db, page.records(), first)));
    return { records, total: () => head.total, links: () => page.links(head.edge) };
  }

  /** The record as its JSON text, shaped by `fields=` and `expand=`; 404 when it does not exist or the caller cannot see it. */
  async retrieve(user: Principal, id: number, query: Record<string, string> = {}): Promise<string> {
    const list = this.shapes.selectListOf(query, user);
    return this.reads.read((db) => this.fetchVisible(db, user, id, list));
  }

  /** The record as its detail serves it, read on `db` (a write's transaction, say); 404 when the caller cannot see it. */
  async fetchVisible(db: Db, user: Principal, id: number, list?: Fragment): Promise<string> {
    return (await this.fetchJson(db, id, this.visible(user), list)) ?? throwNotFound();
  }

  private async fetchJson(db: Db, id: number, where: Fragment[] = [], list?: Fragment): Promise<string | undefined> {
    const query = where.length || list ? jsonRecords(this.resource, [frag(`${ROW}.id = ?`, [id]), ...where], undefined, list) : recordById(this.resource, id);
    const rows = rowsOf(await prepared(db, query));
    return rows[0]?.json as string | undefined;
  }

  /** `json`, a record just written, as `user` reads it: read again without what their field permissions hide. */
  private async asServed(user: Principal, json: string): Promise<string> {
    const mask = fieldMask(this.resource, user);
    if (mask.hidden.size === 0) return json;
    return (await this.fetchJson(this.db(user), (JSON.parse(json) as Row).id as number, [], frag(mask.list())))!;
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

  /** The checks the process makes around `user`'s statement, none for a superuser. */
  private guarded(user: Principal): { privileges: boolean; grants: boolean } {
    return user.isSuperuser ? { privileges: false, grants: false } : this.guards;
  }

  /**
   * A batch action (batch.ts) over `input.ids`: one statement (batch-statement.ts) where nothing is
   * checked in the process; else, in one transaction, the statement's 400s and 403 first, then each
   * record's own write as update and destroy make it. Answers the number of records written.
   */
  async batch(user: Principal, input: BatchInput): Promise<number> {
    const { privileges, grants } = this.guarded(user);
    const credentials = this.credentials.some((name) => name in input.values);
    const checked = input.deleting ? privileges || this.hooked : privileges || grants || this.scoped || this.hooked || credentials;
    if (!checked) return (await this.batches.run(this.db(user), user, input, { write: true, rules: true, served: false })).length;
    const label = input.deleting ? `${this.resource.name} records` : undefined;
    return this.transaction(user, async (trx) => {
      const rows = await this.batches.run(trx, user, input, { write: false, rules: false, served: input.deleting });
      if (!input.deleting) {
        for (const { id } of rows) await this.updateIn(trx, user, id as number, { values: { ...input.values }, errors: new FieldErrorCollector() }, 'update');
        return rows.length;
      }
      for (const row of rows) await checkPrivileges(this.privileges(trx, user), this.resource, {}, row);
      if (!this.hooked) return (await this.batches.run(trx, user, input, { write: true, rules: true, served: false })).length;
      // a protect key's 409 comes before the hooks
      await this.batches.run(trx, user, input, { write: false, rules: true, served: false });
      const hooks = rows.map((before) => this.hooks({ trx, operation: 'delete', principal: user, values: {}, before, errors: new FieldErrorCollector() }));
      for (const h of hooks) {
        await h.validate();
        await h.beforeWrite();
      }
      await this.batches.run(trx, user, input, { write: true, rules: true, served: false });
      for (const [i, h] of hooks.entries()) await h.afterWrite(rows[i]!.id as number);
      return rows.length;
    }, label);
  }

  /** Runs `work` in one transaction as `actor` (audit/actor.ts), database failures mapped to API errors (`deleting` names what a delete removes). */
  async transaction<T>(actor: Principal | undefined, work: (trx: Knex.Transaction) => Promise<T>, deleting?: string): Promise<T> {
    try {
      return await (actor ? this.db(actor) : this.pool).transaction(async (trx) => {
        await setActor(trx, actor);
        return work(trx);
      });
    } catch (err) {
      throw mapDatabaseError(err, deleting);
    }
  }

  /**
   * One statement, joining the request's transaction if it has one (`Idempotency-Key`); with the
   * process's checks around it in one transaction where the caller needs them.
   */
  async create(user: Principal, body: unknown): Promise<string> {
    const input = this.validate(body, 'create');
    await refuseUnwritable(this.resource, user, input.values);
    const { privileges, grants } = this.guarded(user);
    if (!privileges && !grants && !this.scoped && !this.hooked) return this.asServed(user, await this.statements.create(this.db(user), user, input));
    return this.asServed(
      user,
      await this.transaction(user, async (trx) => {
        if (privileges) await checkPrivileges(this.privileges(trx, user, input.errors), this.resource, input.values, undefined);
        const hooks = await this.hooksBefore(trx, user, input, 'create');
        if (this.scoped && !input.errors.has()) await this.statements.lockScopes(trx, user, undefined, input.values);
        const json = await this.statements.create(trx, user, input);
        const id = (JSON.parse(json) as Row).id as number;
        if (grants) await checkGrants(trx, this.registry.resources, user, this.resource, id, input.values, true);
        return this.hooksAfter(trx, hooks, id, json);
      }),
    );
  }

  /**
   * Creates `bodies` in `trx` with a statement per shape of row, where no record needs the
   * process's checks (escalation, grants, scopes, hooks, field permissions): true when all were
   * written. False when any would be refused or needs those checks, and a field permission's 403
   * thrown; the caller then rolls back and creates them one at a time (imports).
   */
  async createMany(trx: Knex.Transaction, user: Principal, bodies: readonly Record<string, unknown>[]): Promise<boolean> {
    const { privileges, grants } = this.guarded(user);
    if (privileges || grants || this.scoped || this.hooked) return false;
    const inputs = bodies.map((body) => this.validate(body, 'create'));
    // a field the user may not write refuses the create, as create() refuses it (403)
    for (const { values } of inputs) await refuseUnwritable(this.resource, user, values);
    return createMany(this.statements, trx, user, inputs);
  }

  /** A hooked write's hooks, validate and beforeWrite run on every error a dry run of the statement finds (404, 403, 412 answered before). */
  private async hooksBefore(trx: Knex.Transaction, user: Principal, input: Validated, operation: Exclude<WriteOperation, 'delete'>, before?: Row): Promise<WriteHooks | undefined> {
    if (!this.hooked) return undefined;
    const errors = await this.statements.diagnose(trx, user, input, before);
    const hooks = this.hooks({ trx, operation, principal: user, values: input.values, before, errors });
    await hooks.validate();
    await hooks.beforeWrite();
    return hooks;
  }

  /** Runs afterWrite; the record as it is after the hook (which may have changed it). */
  private async hooksAfter(trx: Knex.Transaction, hooks: WriteHooks | undefined, id: number, json: string): Promise<string> {
    if (!hooks) return json;
    await hooks.afterWrite(id);
    return (await this.fetchJson(trx, id))!;
  }

  /**
   * As create. The record is locked, its 404, 403 and 412 answered, before anything else is looked
   * at: a `precondition` (If-Match) is compared with the record as locked, so nothing can change it
   * between the comparison and the write; a body that is no object is refused after that.
   */
  async update(user: Principal, id: number, body: unknown, partial: boolean, precondition?: Precondition): Promise<string> {
    const mode = partial ? 'patch' : 'create';
    // field permissions are checked on every path before anything is written: a body that is no
    // object is refused by validate (after 404 and 403), so only an object's values are looked at
    const checked = isObject(body) ? this.validate(body, mode) : undefined;
    if (checked) await refuseUnwritable(this.resource, user, checked.values, () => this.retrieve(user, id));
    precondition = await unmaskedPrecondition(this.db(user), this.resource, user, id, precondition);
    const { privileges, grants } = this.guarded(user);
    const input = checked ?? this.validate(body, mode);
    const credentials = this.credentials.some((name) => name in input.values);
    if (!privileges && !grants && !credentials && !this.scoped && !this.hooked) return this.asServed(user, await this.statements.update(this.db(user), user, id, input, precondition));
    return this.asServed(user, await this.transaction(user, (trx) => this.updateIn(trx, user, id, input, partial ? 'update' : 'replace', precondition)));
  }

  /** An update with the process's checks around its statement, in `trx`: the record's JSON. */
  private async updateIn(trx: Knex.Transaction, user: Principal, id: number, input: Validated, operation: 'update' | 'replace', precondition?: Precondition): Promise<string> {
    const { privileges, grants } = this.guarded(user);
    const credentials = this.credentials.some((name) => name in input.values);
    const existing = privileges || this.hooked ? await this.statements.lockServed(trx, user, id, precondition) : undefined;
    if (privileges) await checkPrivileges(this.privileges(trx, user, input.errors), this.resource, input.values, existing);
    const hooks = await this.hooksBefore(trx, user, input, operation, existing);
    if (this.scoped && !input.errors.has()) await this.statements.lockScopes(trx, user, id, input.values);
    const json = await this.statements.update(trx, user, id, input, precondition);
    if (grants) await checkGrants(trx, this.registry.resources, user, this.resource, id, input.values, false);
    if (credentials) await endSessions(trx, id, user.sessionId);
    return this.hooksAfter(trx, hooks, id, json);
  }

  /** One statement, as create; a non-superuser's delete of a record that may hold rights is checked for escalation first. */
  async destroy(user: Principal, id: number, precondition?: Precondition): Promise<void> {
    precondition = await unmaskedPrecondition(this.db(user), this.resource, user, id, precondition);
    const label = `${this.resource.name} ${id}`;
    const { privileges } = this.guarded(user);
    if (!privileges && !this.hooked) return this.statements.delete(this.db(user), user, id, precondition);
    return this.transaction(user, async (trx) => {
      const before = await this.statements.lockServed(trx, user, id, precondition);
      if (privileges) await checkPrivileges(this.privileges(trx, user), this.resource, {}, before);
      if (!this.hooked) return this.statements.delete(trx, user, id, precondition);
      // a protect key's 409 comes before the hooks, as every refusal the statement answers
      await this.statements.delete(trx, user, id, precondition, true);
      const hooks = this.hooks({ trx, operation: 'delete', principal: user, values: {}, before, errors: new FieldErrorCollector() });
      await hooks.validate();
      await hooks.beforeWrite();
      await this.statements.delete(trx, user, id, precondition);
      await hooks.afterWrite(id);
    }, label);
  }

  /** The recorded state moves of a visible record, oldest first. */
  async stateLog(user: Principal, id: number): Promise<Row[]> {
    // both reads on one server, so a replica answers for the record and its log alike
    return this.reads.read(async (db) => {
      await this.fetchVisible(db, user, id);
      return (await db('state_changes')
        .select(
          'field',
          'from_state as from',
          'to_state as to',
          'changed_by',
          db.raw(`to_char(changed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as changed_at`),
        )
        .where({ resource: this.resource.key, record_id: id })
        .orderBy('id')) as Row[];
    });
  }
}
