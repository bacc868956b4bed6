/**
 * `/api/webhook/subscription`: where and for which events deliveries go. `events` names
 * `<module>.<resource>.<created|updated|deleted|state_changed>` of declared resources
 * (`state_changed` only of those with a lifecycle), and the events their schedules send (`events`); `secret` signs each delivery and is never served.
 * A subscription belongs to the user who made it (`created_by`): only they, or a superuser, read,
 * change or delete it; to anyone else it does not exist (404), so ids do not tell. It receives only
 * what its owner may view (dispatcher.ts).
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { eventPrefix } from '../audit/capture-triggers.js';
import { expectObject } from '../crud/body.js';
import { TableList } from '../crud/table-list.js';
import { compileBodyValidator, type BodyValidator, type createAjv } from '../crud/validator.js';
import { FieldErrorCollector } from '../errors.js';
import { webUrlSchema } from '../fields/strings.js';
import { isoTimestamp } from '../fields/values.js';
import type { TableRoutes } from '../http/table-routes.js';
import type { Resource } from '../registry/resource.js';
import { frag, TRUE, type Fragment } from '../storage/sql.js';

export const SUBSCRIPTION_PATH = '/api/webhook/subscription';

/** The event names of `resources`. */
export function eventNames(resources: readonly Resource[]): string[] {
  return resources.flatMap((r) => {
    const kinds = ['created', 'updated', 'deleted', ...(r.fields.some((f) => f.spec.type === 'state') ? ['state_changed'] : []), ...(r.declaration.events ?? [])];
    return kinds.map((k) => `${eventPrefix(r)}.${k}`);
  });
}

/** The request body's fields, as JSON Schema (also the OpenAPI schema's); `events` lists the event names. */
export const subscriptionFields = (events: readonly string[]) => ({
  url: { ...webUrlSchema(2000), description: 'Where deliveries are POSTed: an http or https URL with a host.' },
  events: {
    type: 'array',
    minItems: 1,
    maxItems: 1000,
    items: { type: 'string', enum: events },
    description: 'Event names, `<module>.<resource>.<created|updated|deleted|state_changed>`, e.g. `issue.issue.created`.',
  },
  secret: { type: 'string', minLength: 16, maxLength: 255, writeOnly: true, description: 'Key of the HMAC-SHA256 signature in `X-BMS-Signature`; never served.' },
  active: { type: 'boolean', description: 'Inactive subscriptions get no new events (default true).' },
});

const SUBSCRIPTION_JSON = `json_build_object('id', e.id, 'url', e.url, 'events', e.events, 'active', e.active, 'created', ${isoTimestamp('e.created')},
  'modified', ${isoTimestamp('e.modified')}, 'created_by', e.created_by)`;

/** The body's JSON Schema (`required` left out when empty, as OpenAPI 3.0 asks). */
export const subscriptionBody = (events: readonly string[], required: readonly string[]) => ({
  type: 'object',
  properties: subscriptionFields(events),
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});

/** The subscriptions (row `alias`) `user` owns: all of them for a superuser. */
export const ownedBy = (user: Principal, alias: string): Fragment => (user.isSuperuser ? TRUE : frag(`${alias}.created_by = ?`, [user.id]));

/** What a create and a replace must send. */
export const REQUIRED_FIELDS = ['url', 'events', 'secret'];

export function subscriptionRoutes(db: Knex, resources: readonly Resource[], ajv: ReturnType<typeof createAjv>): TableRoutes {
  const events = eventNames(resources);
  const validators: Record<'full' | 'partial', BodyValidator> = {
    full: compileBodyValidator(ajv, subscriptionBody(events, REQUIRED_FIELDS)),
    partial: compileBodyValidator(ajv, subscriptionBody(events, [])),
  };
  const list = new TableList(db, 'webhook_subscriptions', SUBSCRIPTION_JSON, [{ param: 'active', column: 'active', type: { type: 'boolean', description: '' }, op: 'exact' }]);

  /** The body's columns, every error at once (400). */
  const columns = (body: unknown, partial: boolean): Record<string, unknown> => {
    const given = expectObject(body);
    const errors = new FieldErrorCollector();
    for (const [name, messages] of Object.entries(validators[partial ? 'partial' : 'full'](given))) for (const m of messages) errors.add(name, m);
    errors.throwIfAny();
    const { url, events, secret, active } = given as { url?: string; events?: string[]; secret?: string; active?: boolean };
    const row: Record<string, unknown> = { url, events: events && [...new Set(events)], secret, active };
    return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
  };

  return {
    permissions: { view: 'webhook.view_subscription', add: 'webhook.add_subscription', change: 'webhook.change_subscription', delete: 'webhook.delete_subscription' },
    list,
    visible: (user) => [ownedBy(user, 'e')],
    writes: {
      create: async (user: Principal, body: unknown) => {
        const [{ id }] = (await db('webhook_subscriptions').insert({ ...columns(body, false), created_by: user.id }).returning('id')) as [{ id: number }];
        return list.detail(id, []);
      },
      update: async (user: Principal, id: number, body: unknown, partial: boolean) => {
        if ((await list.detail(id, [ownedBy(user, 'e')])) === undefined) return undefined;
        await db('webhook_subscriptions').where({ id }).update({ ...columns(body, partial), modified: db.fn.now() });
        return list.detail(id, []);
      },
      remove: async (user: Principal, id: number) => {
        const own = ownedBy(user, 'e');
        return (await db('webhook_subscriptions as e').where('e.id', id).whereRaw(own.sql, own.bindings as Knex.RawBinding[]).delete().returning('e.id')).length > 0;
      },
    },
  };
}
