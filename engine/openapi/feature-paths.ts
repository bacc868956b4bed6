/** The engine's own endpoints beside the resources: the audit trail and webhooks (subscriptions and the delivery log). */
import { ENTRY_ACTIONS } from '../audit/actions.js';
import { AUDIT_PATH } from '../audit/routes.js';
import { INT_MAX } from '../fields/values.js';
import { DELIVERY_PATH, DELIVERY_STATUSES } from '../webhooks/deliveries.js';
import type { Resource } from '../registry/resource.js';
import { eventNames, REQUIRED_FIELDS, subscriptionBody, subscriptionFields, SUBSCRIPTION_PATH } from '../webhooks/subscriptions.js';
import { toOpenApi } from './json-schema.js';
import { json, responsesOf, WRITE_ERRORS } from './shared.js';
import { ref, type Operation, type Parameter, type PathsPart, type Schema } from './types.js';

const id = (description: string): Schema => ({ type: 'integer', minimum: 1, maximum: INT_MAX, description, example: 1 });
const time = (description: string, nullable = false): Schema => ({ type: 'string', format: 'date-time', ...(nullable ? { nullable: true } : {}), description });
const object = (description: string, properties: Record<string, Schema>): Schema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const entry = object('One recorded write (a create, an update or a delete of one record), or a security event about a user (resource `user`).', {
  id: id('Identifier of the entry.'),
  at: time('When the write happened (UTC).'),
  user: { ...id('The user who wrote; null for writes outside a request (manage commands).'), nullable: true },
  action: {
    type: 'string',
    enum: ENTRY_ACTIONS,
    description:
      'What the write did; or the security event: `sign_in`, `sign_in_failed` (changes: `address`), `sign_out`, `password_changed` (by the user), `password_reset` (by another), `token_created`, `token_revoked`, `groups_changed`, `superuser_changed`, `session_ended` (changes: `sessions`, how many). None carries a secret.',
  },
  resource: { type: 'string', description: 'The resource key, e.g. `issue/issue` (`user` for `/api/user`).' },
  record_id: { ...id('Id of the record written (the user, for a security event); null for a failed sign-in under a name that is no user\'s.'), nullable: true },
  changes: {
    type: 'object',
    additionalProperties: true,
    description:
      'update: `{"field": [old, new]}` per changed field, and `{"<name>_ids": [old ids, new ids]}` per changed many-to-many link set; create: the new values and link sets; delete: the last values. Foreign keys appear as `<name>_id`; passwords never.',
  },
  request_id: { type: 'string', nullable: true, description: 'The `X-Request-Id` of the request that wrote.' },
});

const delivery = object("One event for one subscription: its attempts and outcome. Served to the subscription's owner while they may view its record as the event left it, and to superusers.", {
  id: id('Identifier of the delivery.'),
  delivery: { type: 'string', format: 'uuid', description: 'Sent as `X-BMS-Delivery`, the same on every attempt: receivers drop repeats by it.' },
  subscription: id('The subscription it goes to.'),
  event: { type: 'string', description: 'The event name, e.g. `issue.issue.created`.' },
  resource: { type: 'string', description: 'The resource key, e.g. `issue/issue`.' },
  record_id: id('Id of the record the event is about.'),
  at: time('When the write happened (UTC).'),
  status: { type: 'string', enum: [...DELIVERY_STATUSES], description: 'pending (waiting for an attempt), delivered (a 2xx answer) or failed (10 attempts failed).' },
  attempts: { type: 'integer', minimum: 0, maximum: 10, description: 'Attempts made so far.' },
  last_error: { type: 'string', nullable: true, description: 'Why the last attempt failed; null once delivered.' },
  next_attempt: time('When the next attempt is due; null when delivered or failed.', true),
  delivered_at: time('When the receiver accepted it.', true),
});

const query = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, schema });
const paging = [
  query('limit', 'At most this many records, newest first (default 100, at most 1000); `Link` (`rel="next"`) points to the next page.', { type: 'integer', minimum: 1, maximum: 1000 }),
  query('offset', 'Skip this many records first.', { type: 'integer', minimum: 0, maximum: 999999999 }),
];

const op = (tag: string, operationId: string, summary: string, description: string, rest: Omit<Operation, 'operationId' | 'summary' | 'description' | 'tags'>): Operation => ({
  operationId,
  summary,
  description,
  tags: [tag],
  ...rest,
});

const READ_ERRORS = ['NotAuthenticated', 'PermissionDenied'] as const;
const ok = (description: string, schema: string, list = false) => ({ 200: { description, content: json(list ? { type: 'array', items: ref('schemas', schema) } : ref('schemas', schema)) } });
const itemId = [ref('parameters', 'Id')];

export const FEATURE_TAGS = [
  { name: 'audit', description: 'The audit trail: every write of a record, recorded in its transaction.' },
  { name: 'webhook', description: 'Webhook subscriptions and the log of their deliveries.' },
];

export function featurePaths(resources: readonly Resource[]): PathsPart {
  const events = eventNames(resources);
  const fields = Object.entries(subscriptionFields(events)).filter(([name]) => name !== 'secret');
  const subscription = object('A webhook subscription; its secret is never served. It belongs to `created_by`: only they and superusers see, change or delete it, and it delivers only what they may view.', {
    id: id('Identifier of the subscription.'),
    ...Object.fromEntries(fields.map(([name, s]) => [name, toOpenApi(s)])),
    created: time('When it was created (UTC).'),
    modified: time('When it last changed (UTC).'),
    created_by: { ...id('The user who created it, its owner; null once that user is deleted (it then delivers nothing).'), nullable: true },
  });
  const request = (required: string[]): Schema => toOpenApi(subscriptionBody(events, required));
  const readOnly = (tag: string, path: string, name: string, schema: string, permission: string, filters: Parameter[], about: string): PathsPart['paths'] => ({
    [path]: {
      get: op(tag, `${name}_list`, `List ${about}`, `Newest first. Needs \`${permission}\`.`, { parameters: [...filters, ...paging], responses: responsesOf(ok(`The ${about}.`, schema, true), ['ValidationFailed', ...READ_ERRORS]) }),
    },
    [`${path}/{id}`]: {
      get: op(tag, `${name}_retrieve`, `One of the ${about}`, `Needs \`${permission}\`.`, { parameters: itemId, responses: responsesOf(ok('The record.', schema), [...READ_ERRORS, 'NotFound']) }),
    },
  });
  const requestBody = (schema: string) => ({ required: true, content: json(ref('schemas', schema)) });
  const one = ok('The subscription.', 'WebhookSubscription');
  return {
    schemas: {
      AuditEntry: entry,
      WebhookSubscription: subscription,
      WebhookSubscriptionRequest: { ...request(REQUIRED_FIELDS), description: 'A webhook subscription as written.' },
      PatchedWebhookSubscriptionRequest: { ...request([]), description: 'The fields of a webhook subscription to change.' },
      WebhookDelivery: delivery,
    },
    paths: {
      ...readOnly('audit', AUDIT_PATH, 'audit', 'AuditEntry', 'audit.view_entry', [
        query('resource', 'Entries of this resource (`issue/issue`).', { type: 'string' }),
        query('record_id', 'Entries of this record.', { type: 'integer', minimum: 1, maximum: INT_MAX }),
        query('user', 'Entries of writes by this user.', { type: 'integer', minimum: 1, maximum: INT_MAX }),
        query('action', 'Entries of this action (a write or a security event).', { type: 'string', enum: ENTRY_ACTIONS }),
        query('at_from', 'Entries at or after this time (a date: its start).', { type: 'string', format: 'date-time' }),
        query('at_to', 'Entries at or before this time (a date: its end).', { type: 'string', format: 'date-time' }),
      ], 'audit entries'),
      ...readOnly('webhook', DELIVERY_PATH, 'webhook_delivery', 'WebhookDelivery', 'webhook.view_delivery', [
        query('subscription', 'Deliveries of this subscription.', { type: 'integer', minimum: 1, maximum: INT_MAX }),
        query('event', 'Deliveries of this event.', { type: 'string' }),
        query('status', 'Deliveries in this status.', { type: 'string', enum: [...DELIVERY_STATUSES] }),
      ], 'webhook deliveries'),
      [SUBSCRIPTION_PATH]: {
        get: op('webhook', 'webhook_subscription_list', 'List webhook subscriptions', 'Newest first. Needs `webhook.view_subscription`.', {
          parameters: [query('active', 'Only active (`true`) or inactive (`false`) subscriptions.', { type: 'boolean' }), ...paging],
          responses: responsesOf(ok('The subscriptions.', 'WebhookSubscription', true), ['ValidationFailed', ...READ_ERRORS]),
        }),
        post: op('webhook', 'webhook_subscription_create', 'Create a webhook subscription', 'Needs `webhook.add_subscription`.', {
          requestBody: requestBody('WebhookSubscriptionRequest'),
          responses: responsesOf({ 201: one[200] }, WRITE_ERRORS),
        }),
      },
      [`${SUBSCRIPTION_PATH}/{id}`]: {
        get: op('webhook', 'webhook_subscription_retrieve', 'One webhook subscription', 'Needs `webhook.view_subscription`.', { parameters: itemId, responses: responsesOf(one, [...READ_ERRORS, 'NotFound']) }),
        put: op('webhook', 'webhook_subscription_update', 'Replace a webhook subscription', 'Needs `webhook.change_subscription`.', {
          parameters: itemId,
          requestBody: requestBody('WebhookSubscriptionRequest'),
          responses: responsesOf(one, [...WRITE_ERRORS, 'NotFound']),
        }),
        patch: op('webhook', 'webhook_subscription_partial_update', 'Change a webhook subscription', 'Needs `webhook.change_subscription`.', {
          parameters: itemId,
          requestBody: requestBody('PatchedWebhookSubscriptionRequest'),
          responses: responsesOf(one, [...WRITE_ERRORS, 'NotFound']),
        }),
        delete: op('webhook', 'webhook_subscription_destroy', 'Delete a webhook subscription', 'Needs `webhook.delete_subscription`; its deliveries go with it.', {
          parameters: itemId,
          responses: responsesOf({ 204: { description: 'Deleted; no body.' } }, [...READ_ERRORS, 'NotFound']),
        }),
      },
    },
  };
}
