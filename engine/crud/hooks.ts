/**
 * A resource's declared hooks (declare/hooks.ts) for one write, inside its transaction. The write
 * paths (service, batch, bulk writer) call them at the same points: validate with the engine's own
 * checks, beforeWrite once everything filed so far is answered, afterWrite once the rows are written.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import type { HookContext, RecordReader, WriteOperation } from '../declare/index.js';
import type { FieldErrorCollector } from '../errors.js';
import { findField, findForeignKey, findManyToMany, type Resource } from '../registry/resource.js';
import { ROW } from '../storage/serialise.js';
import { q } from '../storage/sql.js';
import type { Values } from './body.js';
import type { Row } from './rows.js';
import { fetchRecord, selectRecords } from './store.js';

export interface Write {
  trx: Knex.Transaction;
  operation: WriteOperation;
  principal: Principal;
  values: Values;
  /** The record as served, locked; undefined on create. */
  before: Row | undefined;
  errors: FieldErrorCollector;
  /** Bulk writes: the caller is trusted, so reads see every record. */
  trusted?: boolean;
}

/** The resource of a key, for reads. */
export type FindResource = (key: string) => Resource;

const unknownName = (resource: Resource, name: string): never => {
  throw new Error(`Hook of ${resource.key}: "${name}" is not a field or relation of ${resource.key}.`);
};

/** Alias of the visibility flag beside a served record: no declared name starts with `$`. */
const VISIBLE = '$visible';

function reader(trx: Knex.Transaction, resourceOf: FindResource, principal: Principal | undefined): RecordReader {
  return {
    async find(key, where) {
      const target = resourceOf(key);
      const visible = principal && accessPredicate(target, 'view', principal, ROW);
      const qb = selectRecords(trx, target, [])
        .select(trx.raw(`(${visible?.sql ?? 'true'}) as ${q(VISIBLE)}`, (visible?.bindings ?? []) as Knex.RawBinding[]))
        .orderBy(`${ROW}.id`);
      for (const [name, value] of Object.entries(where)) {
        const column = `${ROW}.${findField(target, name)?.column ?? findForeignKey(target, name)?.column ?? unknownName(target, name)}`;
        if (Array.isArray(value)) qb.whereIn(column, value as Knex.Value[]);
        else qb.where(column, value as Knex.Value);
      }
      return ((await qb) as Row[]).map(({ [VISIBLE]: seen, ...record }) => ({ record, visible: seen === true }));
    },
  };
}

export class WriteHooks {
  readonly context: HookContext;

  constructor(
    private readonly resource: Resource,
    resourceOf: FindResource,
    { trx, operation, principal, values, before, errors, trusted }: Write,
  ) {
    const writeName = (name: string): string =>
      findField(resource, name)?.name ?? findForeignKey(resource, name)?.writeName ?? findManyToMany(resource, name)?.writeName ?? unknownName(resource, name);
    const sets = (name: string) => writeName(name) in values;
    const value = (name: string): unknown => {
      if (sets(name)) return values[writeName(name)];
      if (before) return before[name];
      if (findManyToMany(resource, name)) return [];
      const spec = findField(resource, name)?.spec;
      return (spec && 'default' in spec ? spec.default : undefined) ?? null;
    };
    this.context = { trx, operation, principal, values, before, sets, value, read: reader(trx, resourceOf, trusted ? undefined : principal), errors };
  }

  private get declared() {
    return this.resource.declaration.hooks ?? {};
  }

  /** Files the hook's errors beside the engine's; the caller answers them. */
  async validate(): Promise<void> {
    await this.declared.validate?.(this.context);
  }

  /** Answers every error filed so far (the engine's and validate's), then runs the hook. */
  async beforeWrite(): Promise<void> {
    this.context.errors.throwIfAny();
    await this.declared.beforeWrite?.(this.context);
    this.context.errors.throwIfAny();
  }

  /** `id`: the record written (gone after a delete). */
  async afterWrite(id: number): Promise<void> {
    const hook = this.declared.afterWrite;
    if (!hook) return;
    const after = this.context.operation === 'delete' ? undefined : await fetchRecord(this.context.trx, this.resource, id);
    await hook({ ...this.context, after });
    this.context.errors.throwIfAny();
  }
}
