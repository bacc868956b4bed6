/**
 * The writes of an engine table that declares them (declare/engine-table.ts), behind the routes
 * every resource has: the body checked against the declared schema, every bad field at once, after
 * the 404 of a record the caller cannot see; each write one transaction, which then reads the
 * record as its detail serves it.
 */
import type { Ajv } from 'ajv';
import type { Principal } from '../auth/users.js';
import { writesAll, type EngineTableRemoves, type EngineTableWrites } from '../declare/engine-table.js';
import type { Knex } from 'knex';
import { FieldErrorCollector, notFound, preconditionFailed } from '../errors.js';
import { holds, type Precondition } from '../storage/entity-tag.js';
import { expectObject } from './body.js';
import type { ResourceService } from './service.js';
import { compileBodyValidator, type BodyValidator } from './validator.js';

/** What the routes of a record ask of its writer: the record's JSON text after each write; `precondition` is If-Match's. */
export interface RecordWrites {
  create(user: Principal, body: unknown): Promise<string>;
  update(user: Principal, id: number, body: unknown, partial: boolean, precondition?: Precondition): Promise<string>;
  destroy(user: Principal, id: number, precondition?: Precondition): Promise<void>;
}

export class DeclaredWrites implements RecordWrites {
  private readonly validators: Record<'create' | 'patch', BodyValidator> | undefined;

  /** `writes` that only remove serve DELETE only: the routes offer no create or change (compile.ts). */
  constructor(
    private readonly service: ResourceService,
    private readonly writes: EngineTableWrites | EngineTableRemoves,
    ajv: Ajv,
  ) {
    this.validators = writesAll(writes) ? { create: compileBodyValidator(ajv, writes.body('create')), patch: compileBodyValidator(ajv, writes.body('patch')) } : undefined;
  }

  /** The writes that create and change: only a table that declares them serves those routes (compile.ts). */
  private get all(): EngineTableWrites {
    return this.writes as EngineTableWrites;
  }

  /** The body, when it satisfies the declared schema; a 400 naming every bad field otherwise. */
  private checked(body: unknown, mode: 'create' | 'patch'): Record<string, unknown> {
    const given = expectObject(body);
    const errors = new FieldErrorCollector();
    for (const [name, messages] of Object.entries(this.validators![mode](given))) for (const m of messages) errors.add(name, m);
    errors.throwIfAny();
    return given;
  }

  async create(user: Principal, body: unknown): Promise<string> {
    const writes = this.all;
    const values = this.checked(body, 'create');
    return this.service.transaction(user, async (trx) => this.service.fetchVisible(trx, user, await writes.create(trx, user, values)));
  }

  /** The record `user` sees, its row locked for `trx`; 404 when they cannot see it, 412 when it fails `precondition`. */
  private async lock(trx: Knex.Transaction, user: Principal, id: number, precondition: Precondition | undefined): Promise<void> {
    await trx(this.service.resource.table).where({ id }).forUpdate().select('id');
    const json = await this.service.fetchVisible(trx, user, id);
    if (precondition && !holds(precondition, json)) throw preconditionFailed();
  }

  async update(user: Principal, id: number, body: unknown, partial: boolean, precondition?: Precondition): Promise<string> {
    return this.service.transaction(user, async (trx) => {
      await this.lock(trx, user, id, precondition);
      await this.all.update(trx, user, id, this.checked(body, partial ? 'patch' : 'create'));
      return this.service.fetchVisible(trx, user, id);
    });
  }

  async destroy(user: Principal, id: number, precondition?: Precondition): Promise<void> {
    const removed = await this.service.transaction(user, async (trx) => {
      await this.lock(trx, user, id, precondition);
      return this.writes.remove(trx, user, id);
    });
    if (!removed) throw notFound();
  }
}
