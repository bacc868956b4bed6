/**
 * Who sees which webhook delivery: superusers every one; others those of their own subscriptions
 * whose record they may view as the event left it, the condition the dispatcher sends under.
 */
import type { Principal } from '../auth/users.js';
import { recordedRow, viewCondition } from '../access/recorded.js';
import type { Resource } from '../registry/resource.js';
import { ROW } from '../storage/serialise.js';
import { FALSE, frag, joinFragments, type Fragment } from '../storage/sql.js';
import { ownedBy } from './subscriptions.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/**
 * `<from> where <condition>`: the record (row `recordedAs`) of the delivery at `alias`, of
 * `resource`, as its event recorded it, when `user` may view it so (no row otherwise); undefined
 * when `user` may view no record of `resource`.
 */
export function asRecorded(resource: Resource, user: Principal, alias: string, recordedAs = ROW): Fragment | undefined {
  const seen = viewCondition(resource, user, recordedAs);
  if (seen === FALSE) return undefined;
  return frag(`${recordedRow(resource, `${alias}.record_id`, `${alias}.data`, recordedAs)} where ${seen.sql}`, seen.bindings);
}

/** The alias of a delivery's record as recorded, where the delivery's row may be `ROW`. */
const RECORDED = 'recorded_row';

/** The deliveries (row `alias`) a non-superuser `user` may see. */
export function visibleDeliveries(resources: readonly Resource[], user: Principal, alias: string): Fragment {
  const own = ownedBy(user, 's');
  const records = resources.flatMap((r) => {
    const seen = asRecorded(r, user, alias, RECORDED);
    return seen ? [frag(`(${alias}.resource = ? and exists (select 1 from ${seen.sql}))`, [r.key, ...seen.bindings])] : [];
  });
  return joinFragments([frag(`exists (select 1 from webhook_subscriptions s where s.id = ${alias}.subscription_id and ${own.sql})`, own.bindings), joinFragments(records, 'or')], 'and');
}
