/**
 * `/api/webhook/delivery`: the delivery log, read-only; one record per event and subscription, its
 * attempts and outcome. Superusers see every delivery; others those of their own subscriptions whose
 * record they may view as the event left it, the condition the dispatcher sends under.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { recordedRow, viewCondition } from '../access/recorded.js';
import { TableList } from '../crud/table-list.js';
import { isoTimestamp } from '../fields/values.js';
import type { TableRoutes } from '../http/table-routes.js';
import type { Resource } from '../registry/resource.js';
import { ROW } from '../storage/serialise.js';
import { FALSE, frag, joinFragments, type Fragment } from '../storage/sql.js';
import { ownedBy } from './subscriptions.js';

export const DELIVERY_PATH = '/api/webhook/delivery';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const DELIVERY_JSON = `json_build_object('id', e.id, 'delivery', e.uuid, 'subscription', e.subscription_id, 'event', e.event, 'resource', e.resource,
  'record_id', e.record_id, 'at', ${isoTimestamp('e.at')}, 'status', e.status, 'attempts', e.attempts, 'last_error', e.last_error,
  'next_attempt', ${isoTimestamp('e.next_attempt')}, 'delivered_at', ${isoTimestamp('e.delivered_at')})`;

/**
 * `<from> where <condition>`: the record (row `ROW`) of the delivery at `alias`, of `resource`, as
 * its event recorded it, when `user` may view it so (no row otherwise); undefined when `user` may
 * view no record of `resource`.
 */
export function asRecorded(resource: Resource, user: Principal, alias: string): Fragment | undefined {
  const seen = viewCondition(resource, user, ROW);
  if (seen === FALSE) return undefined;
  return frag(`${recordedRow(resource, `${alias}.record_id`, `${alias}.data`, ROW)} where ${seen.sql}`, seen.bindings);
}

/** The deliveries (row `e`) `user` may see. */
function visibleDeliveries(resources: readonly Resource[], user: Principal): Fragment[] {
  if (user.isSuperuser) return [];
  const own = ownedBy(user, 's');
  const records = resources.flatMap((r) => {
    const seen = asRecorded(r, user, 'e');
    return seen ? [frag(`(e.resource = ? and exists (select 1 from ${seen.sql}))`, [r.key, ...seen.bindings])] : [];
  });
  return [frag(`exists (select 1 from webhook_subscriptions s where s.id = e.subscription_id and ${own.sql})`, own.bindings), joinFragments(records, 'or')];
}

export function deliveryRoutes(db: Knex, resources: readonly Resource[]): TableRoutes {
  const list = new TableList(db, 'webhook_deliveries', DELIVERY_JSON, [
    { param: 'subscription', column: 'subscription_id', type: { type: 'integer', description: '' }, op: 'exact' },
    { param: 'event', column: 'event', type: { type: 'string', maxLength: 200, description: '' }, op: 'exact' },
    { param: 'status', column: 'status', type: { type: 'enum', values: DELIVERY_STATUSES, description: '' }, op: 'exact' },
  ]);
  return { permissions: { view: 'webhook.view_delivery' }, list, visible: (user) => visibleDeliveries(resources, user) };
}
