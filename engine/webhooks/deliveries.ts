/** `/api/webhook/delivery`: the delivery log, read-only; one record per event and subscription, its attempts and outcome. */
import type { Knex } from 'knex';
import { TableList } from '../crud/table-list.js';
import { isoTimestamp } from '../fields/values.js';
import type { TableRoutes } from '../http/table-routes.js';

export const DELIVERY_PATH = '/api/webhook/delivery';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const DELIVERY_JSON = `json_build_object('id', e.id, 'delivery', e.uuid, 'subscription', e.subscription_id, 'event', e.event, 'resource', e.resource,
  'record_id', e.record_id, 'at', ${isoTimestamp('e.at')}, 'status', e.status, 'attempts', e.attempts, 'last_error', e.last_error,
  'next_attempt', ${isoTimestamp('e.next_attempt')}, 'delivered_at', ${isoTimestamp('e.delivered_at')})`;

export function deliveryRoutes(db: Knex): TableRoutes {
  const list = new TableList(db, 'webhook_deliveries', DELIVERY_JSON, [
    { param: 'subscription', column: 'subscription_id', type: { type: 'integer', description: '' }, op: 'exact' },
    { param: 'event', column: 'event', type: { type: 'string', maxLength: 200, description: '' }, op: 'exact' },
    { param: 'status', column: 'status', type: { type: 'enum', values: DELIVERY_STATUSES, description: '' }, op: 'exact' },
  ]);
  return { permissions: { view: 'webhook.view_delivery' }, list, visible: () => [] };
}
