/**
 * Who is writing, for the change capture: the principal a write is made for (the signed-in user,
 * with the id of the request it acts in), set as transaction-local settings (`bms.user_id`,
 * `bms.request_id`) that the capture trigger reads. Writes without one (manage commands, the
 * seed, scheduled jobs) have no actor: their entries name no user.
 *
 * The principal is passed along with each write, not kept in an AsyncLocalStorage: on Node.js 20
 * a store makes every promise of the process pay async hooks, a tenth of a detail's CPU time.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { frag, type Fragment } from '../storage/sql.js';

/** The settings as select-list items, for a statement that must set them before its writes (`as <prefix>_u`, `<prefix>_r`). */
export function actorSettings(prefix: string, actor: Principal | undefined): Fragment {
  return frag(`set_config('bms.user_id', ?::text, true) as ${prefix}_u, set_config('bms.request_id', ?::text, true) as ${prefix}_r`, [
    actor && !actor.unattributed ? String(actor.id) : '',
    actor?.requestId ?? '',
  ]);
}

/** Sets the settings for the rest of transaction `trx` (its first statement, before any write). */
export async function setActor(trx: Knex.Transaction, actor: Principal | undefined): Promise<void> {
  const s = actorSettings('a', actor);
  await trx.raw(`select ${s.sql}`, s.bindings as Knex.RawBinding[]);
}

/** The rest of transaction `trx` is not captured (no audit entries, no webhook events): the seed's bulk writes. */
export async function withoutCapture(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`select set_config('bms.capture', 'off', true)`);
}
