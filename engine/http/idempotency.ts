/**
 * `Idempotency-Key` on POST (creates and batch actions): a repeat by the same user with the same key
 * and the same request (method, path, body) answers what the first answered, with
 * `Idempotent-Replayed: true`, and does nothing; the same key with another request answers 422.
 *
 * The key's row is inserted first, in one transaction that the request's work joins
 * (Principal.transaction) and that stores the answer before it commits: a concurrent repeat
 * waits on the row's unique index until the first commits (then replays) or rolls back (then runs
 * itself). A request that fails rolls its key back with its work, so it may be sent again. Keys
 * are kept 24 hours.
 */
import { hash } from 'node:crypto';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { badRequest, DetailError } from '../errors.js';
import { readJsonBody } from './json-body.js';

const TABLE = 'idempotency_keys';
const KEPT = "interval '24 hours'";
/** Expired keys are purged at most this often per process. */
const PURGE_EVERY_MS = 60_000;

const reused = () => new DetailError(422, 'This Idempotency-Key was already used with another request.');

interface FirstAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

export class IdempotentPosts {
  private purged = 0;

  constructor(private readonly db: Knex) {}

  /** Runs `handle` with the request's JSON body and the user who writes; once per user and key when the request names one, `user` then writing in the key's transaction. */
  async run(ctx: Context, user: Principal, handle: (body: unknown, user: Principal) => Promise<void>): Promise<void> {
    const body = await readJsonBody(ctx);
    const key = ctx.get('Idempotency-Key');
    if (!key) return handle(body, user);
    if (key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 printable ASCII characters.');
    const fingerprint = hash('sha256', `${ctx.method} ${ctx.path}\n${JSON.stringify(body)}`, 'base64url');
    await this.purgeExpired();
    await this.db.transaction(async (trx) => {
      const mine = { user_id: user.id, key };
      await trx(TABLE).where(mine).whereRaw(`created_at < now() - ${KEPT}`).delete();
      const inserted = await trx(TABLE).insert({ ...mine, fingerprint }).onConflict(['user_id', 'key']).ignore().returning('key');
      if (inserted.length === 0) return replay(ctx, fingerprint, (await trx(TABLE).where(mine).first('fingerprint', 'status', 'body')) as FirstAnswer);
      await handle(body, { ...user, transaction: trx });
      const text = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body ?? null);
      await trx(TABLE).where(mine).update({ status: ctx.status, body: text });
    });
  }

  /** Removes keys past their 24 hours, skipping rows a running request holds. */
  private async purgeExpired(): Promise<void> {
    if (Date.now() - this.purged < PURGE_EVERY_MS) return;
    this.purged = Date.now();
    await purgeIdempotencyKeys(this.db);
  }
}

/** Removes keys past their 24 hours, skipping rows a running request holds (also a daily chore, engine/jobs/chores.ts). */
export async function purgeIdempotencyKeys(db: Knex): Promise<void> {
  await db.raw(`delete from ${TABLE} where (user_id, key) in (select user_id, key from ${TABLE} where created_at < now() - ${KEPT} for update skip locked)`);
}

function replay(ctx: Context, fingerprint: string, first: FirstAnswer): void {
  if (first.fingerprint !== fingerprint) throw reused();
  ctx.status = first.status;
  ctx.type = 'application/json';
  ctx.body = first.body;
  ctx.set('Idempotent-Replayed', 'true');
}
