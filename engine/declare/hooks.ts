/**
 * Hooks of a resource: a module's rules that are code, not data, declared next to its resource.
 * They run inside the write's transaction, for every write of the resource (single requests,
 * batch actions, the bulk writer), so whatever they read, write or refuse commits or rolls back
 * with it.
 *
 * A hook reports field errors by filing them in `ctx.errors` (under write names, as the engine's
 * own: `tracker_id`) or by throwing a `ValidationError`; either becomes the one 400
 * `{field: [messages]}`. Any other `ApiError` it throws answers as usual; anything else is a 500.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import type { FieldErrorCollector } from '../errors.js';

/** `update` is a PATCH (and a batch action's change), `replace` a PUT. */
export type WriteOperation = 'create' | 'update' | 'replace' | 'delete';

/** A record as the API serves it (fields and relations under their read names). */
export type ServedRecord = Readonly<Record<string, unknown>>;

export interface RecordReader {
  /**
   * The records of resource `key` (`issue/category`) whose fields or foreign keys equal the given
   * values (a list: any of them), by name (`{ tracker: 4 }`), in id order, as the API serves
   * them. Each says whether the writer may see it (bulk writes are trusted and see all).
   */
  find(key: string, where: Readonly<Record<string, unknown>>): Promise<{ record: ServedRecord; visible: boolean }[]>;
}

/** What a hook sees of the write; `K` names the resource's fields and relations. */
export interface HookContext<K extends string = string> {
  /** The write's transaction. */
  readonly trx: Knex.Transaction;
  readonly operation: WriteOperation;
  readonly principal: Principal;
  /** The validated values the write sets, under write names (`tracker_id`); empty for a delete. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The record as served before the write; undefined on create. */
  readonly before: ServedRecord | undefined;
  /** Whether the write sets field or relation `name`. */
  readonly sets: (name: K) => boolean;
  /** The value of field or relation `name` after the write: the one set, else the stored one, else (on create) its default. */
  readonly value: (name: K) => unknown;
  readonly read: RecordReader;
  /** Errors filed here are answered after the hook, together with any the engine filed first. */
  readonly errors: FieldErrorCollector;
}

export interface AfterWriteContext<K extends string = string> extends HookContext<K> {
  /** The record as served after the write; undefined after a delete. */
  readonly after: ServedRecord | undefined;
}

type Hook<C> = (ctx: C) => void | Promise<void>;

export interface ResourceHooks<K extends string = string> {
  /**
   * With the engine's own checks, before anything is answered: its errors join theirs, so one 400
   * names every offending field. It runs even when those checks failed; look at `ctx.errors` before
   * reading a value that may be invalid.
   */
  readonly validate?: Hook<HookContext<K>>;
  /** Once the write is valid, before its rows change. */
  readonly beforeWrite?: Hook<HookContext<K>>;
  /** After the rows changed (links and state log included), before the transaction commits. */
  readonly afterWrite?: Hook<AfterWriteContext<K>>;
}
