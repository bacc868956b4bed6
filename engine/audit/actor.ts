/**
 * Who is writing, for the change capture: the signed-in user and the request's id, carried through
 * the request's async calls, and set as transaction-local settings (`bms.user_id`,
 * `bms.request_id`) that the capture trigger reads. Writes outside a request (manage commands)
 * have no actor: their entries name no user.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { frag, type Fragment } from '../storage/sql.js';

export interface Actor {
  userId: number;
  requestId: string | undefined;
}

const current = new AsyncLocalStorage<Actor>();

/** Runs `work` (the rest of a request) as `actor`. */
export const actingAs = <T>(actor: Actor, work: () => Promise<T>): Promise<T> => current.run(actor, work);

/** The settings as select-list items, for a statement that must set them before its writes (`as <prefix>_u`, `<prefix>_r`). */
export function actorSettings(prefix: string): Fragment {
  const actor = current.getStore();
  return frag(`set_config('bms.user_id', ?::text, true) as ${prefix}_u, set_config('bms.request_id', ?::text, true) as ${prefix}_r`, [
    actor ? String(actor.userId) : '',
    actor?.requestId ?? '',
  ]);
}

/** Sets the settings for the rest of transaction `trx` (its first statement, before any write). */
export async function setActor(trx: Knex.Transaction): Promise<void> {
  const s = actorSettings('a');
  await trx.raw(`select ${s.sql}`, s.bindings as Knex.RawBinding[]);
}

/** The rest of transaction `trx` is not captured (no audit entries, no webhook events): the seed's bulk writes. */
export async function withoutCapture(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`select set_config('bms.capture', 'off', true)`);
}
