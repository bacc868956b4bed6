/**
 * The webhook tables the API serves: `/api/webhook/subscription` (each user's own, written through
 * the API) and `/api/webhook/delivery`, the delivery log (read-only): one record per event and
 * subscription, its attempts and outcome.
 */
import { WRITTEN_AT } from '../audit/resource.js';
import { defineEngineTable } from '../declare/engine-table.js';
import { field } from '../declare/fields.js';
import { INT_MAX } from '../fields/values.js';
import type { Resource } from '../registry/resource.js';
import { DELIVERY_STATUSES, visibleDeliveries } from './deliveries.js';
import { ACTIVE_DESCRIPTION, eventNames, eventsSchema, subscriptionWrites, URL_DESCRIPTION } from './subscriptions.js';

const id = (description: string) => field.integer({ minimum: 1, maximum: INT_MAX, nullable: false, description });
const moment = (description: string, nullable = false) => field.datetime({ nullable, description });

/** Subscriptions to the events of the `resources`. */
export const webhookSubscriptions = (resources: readonly Resource[]) => {
  const { description, ...events } = eventsSchema(eventNames(resources));
  return defineEngineTable({
    module: 'webhook',
    name: 'subscription',
    table: 'webhook_subscriptions',
    title: 'Webhook subscription',
    description: 'A webhook subscription; its secret is never served. It belongs to `created_by`: only they and superusers see, change or delete it, and it delivers only what they may view.',
    fields: {
      url: field.url({ maxLength: 2000, nullable: false, description: URL_DESCRIPTION }),
      events: field.json({ schema: events, nullable: false, description }),
      active: field.boolean({ nullable: false, lookups: ['exact'], description: ACTIVE_DESCRIPTION }),
    },
    recordColumns: ['created', 'modified', 'created_by'],
    ordering: ['-id'],
    page: { size: 100, max: 1000 },
    access: { view: { userIs: 'created_by' } },
    writes: subscriptionWrites(resources),
  });
};

/** The delivery log of the subscriptions to the `resources`' events. */
export const webhookDeliveries = (resources: readonly Resource[]) =>
  defineEngineTable({
    module: 'webhook',
    name: 'delivery',
    table: 'webhook_deliveries',
    title: 'Webhook delivery',
    description: "One event for one subscription: its attempts and outcome. Served to the subscription's owner while they may view its record as the event left it, and to superusers.",
    fields: {
      // a uuid column, served as its text: a JSON value of that shape
      delivery: field.json({ schema: { type: 'string', format: 'uuid' }, nullable: false, description: 'Sent as `X-BMS-Delivery`, the same on every attempt: receivers drop repeats by it.' }),
      subscription: { ...id('The subscription it goes to.'), lookups: ['exact'] },
      event: field.string({ maxLength: 200, nullable: false, lookups: ['exact'], description: 'The event name, e.g. `issue.issue.created`.' }),
      resource: field.string({ maxLength: 100, nullable: false, description: 'The resource key, e.g. `issue/issue`.' }),
      record_id: id('Id of the record the event is about.'),
      at: moment(WRITTEN_AT),
      status: field.enum({ values: DELIVERY_STATUSES, nullable: false, lookups: ['exact'], description: 'pending (waiting for an attempt), delivered (a 2xx answer) or failed (10 attempts failed).' }),
      attempts: field.integer({ minimum: 0, maximum: 10, nullable: false, description: 'Attempts made so far.' }),
      last_error: field.text({ description: 'Why the last attempt failed; null once delivered.' }),
      next_attempt: moment('When the next attempt is due; null when delivered or failed.', true),
      delivered_at: moment('When the receiver accepted it.', true),
    },
    columns: { delivery: 'uuid', subscription: 'subscription_id' },
    ordering: ['-id'],
    page: { size: 100, max: 1000 },
    visible: (user, alias) => visibleDeliveries(resources, user, alias),
  });
