/**
 * A table of the engine's own (the audit trail, webhook subscriptions and deliveries, the jobs,
 * the trash), declared as a resource: its routes, filters, paging, OpenAPI and permission names
 * come from the same engine as a module's. The table is the engine's: its own migrations made it, so makemigrations
 * neither creates nor changes it (the desired schema holds module resources only). It is
 * read-only unless it declares `writes`, which are code, as its rows are the engine's business
 * (a secret kept unserved, an owner set by the server); everything it serves is declared fields.
 * Only the engine declares these (`defineEngineTable`); a module's `defineResource` refuses the
 * keys below at compile time.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import type { Fragment } from '../storage/sql.js';
import type { FieldSpec } from './fields.js';
import type { ResourceDeclaration } from './resource.js';

/** The record columns every module table has (CONTRACT 2) that an engine table may have too. */
export type RecordColumn = 'uuid' | 'created' | 'modified' | 'created_by' | 'remote_key';

/** A table that only deletes (the trash's purge): DELETE is served, and no create or change. */
export interface EngineTableRemoves {
  /** false: not found (or not the caller's to see). */
  remove(db: Knex, user: Principal, id: number): Promise<boolean>;
}

/**
 * Writes of one record, in code, on bodies the engine has checked against `body`: each bad field
 * answers 400, all at once, after the 404 of a record the caller cannot see. The route then serves
 * the record as a detail does.
 */
export interface EngineTableWrites extends EngineTableRemoves {
  /**
   * The JSON Schema a create and a replace (`'create'`) or a PATCH (`'patch'`) body must satisfy:
   * what the engine checks and the OpenAPI document shows.
   */
  body(mode: 'create' | 'patch'): Record<string, unknown>;
  /** A valid body, the OpenAPI document's request example: what Swagger UI's "Try it out" sends on a fresh database. */
  readonly example: Record<string, unknown>;
  /** The new record's id. */
  create(db: Knex, user: Principal, values: Readonly<Record<string, unknown>>): Promise<number>;
  /** Changes the record the caller sees (`values` as sent: a PATCH's may be few). */
  update(db: Knex, user: Principal, id: number, values: Readonly<Record<string, unknown>>): Promise<void>;
}

/** Whether `writes` creates and changes records too, or only deletes them. */
export const writesAll = (writes: EngineTableWrites | EngineTableRemoves): writes is EngineTableWrites => 'body' in writes;

export interface EngineTableDeclaration<F extends Record<string, FieldSpec> = Record<string, FieldSpec>> extends Omit<ResourceDeclaration<F>, 'relations' | 'rules' | 'hooks' | 'seed' | 'ordering'> {
  /** The record columns its table has; it serves them after its fields, in this order (default none but id). */
  readonly recordColumns?: readonly RecordColumn[];
  /** Fields served from a column of another name (`user` from `user_id`). */
  readonly columns?: { readonly [N in keyof F]?: string };
  /** Default list order; `id` too, which a log is newest first by (`['-id']`). */
  readonly ordering?: readonly NoInfer<`${'' | '-'}${(keyof F & string) | 'id'}`>[];
  /**
   * A list without `limit` holds `size` records, `limit` at most `max`; the next page is linked by
   * `offset` (a module resource lists every record, and links by cursor).
   */
  readonly page?: { readonly size: number; readonly max: number };
  /**
   * The records a non-superuser with the view permission sees, as a predicate over the row at
   * `alias` (null: all): a rule that is code, for what `access` cannot say (the audit trail's "the
   * records you may view, in every state recorded"); it replaces `access`. Superusers see all.
   */
  readonly visible?: (user: Principal, alias: string) => Fragment | null;
  /**
   * Fields whose value depends on the caller, as an expression over the row at `alias` (undefined:
   * the stored value): the audit trail's `changes` without what the caller's field permissions hide.
   */
  readonly servedAs?: { readonly [N in keyof F]?: (user: Principal, alias: string) => string | undefined };
  /** Absent: read-only (writes answer 405, and only `view` is a permission); only `remove`: DELETE only. */
  readonly writes?: EngineTableWrites | EngineTableRemoves;
  /**
   * List parameters under another name than the one their field's lookup gives (`deleted_at_from`
   * as `deleted_after`).
   */
  readonly params?: Readonly<Record<string, string>>;
  /**
   * Set for a table of the modules' records (the trash): it has no permission names of its own.
   * Who reads an entry is `visible`'s to say, and its writes check the record's own resource's
   * permissions; this text says how, where the OpenAPI document names an operation's permission.
   */
  readonly permissionsOfRecords?: string;
  /** Name of its OpenAPI schema when not the one its path gives (`AuditEntry`). */
  readonly schemaName?: string;
}

export function defineEngineTable<const F extends Record<string, FieldSpec>>(declaration: EngineTableDeclaration<F>): EngineTableDeclaration {
  return declaration as unknown as EngineTableDeclaration;
}
