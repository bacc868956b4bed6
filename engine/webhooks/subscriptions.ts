/**
 * Webhook subscriptions: where and for which events deliveries go. `events` names
 * `<module>.<resource>.<created|updated|deleted|state_changed|file_uploaded>` of declared resources
 * (`state_changed` only of those with a lifecycle, `file_uploaded` of those with files), and the events their schedules send (`events`); `secret` signs each delivery and is never served.
 * A subscription belongs to the user who made it (`created_by`): only they, or a superuser, read,
 * change or delete it; to anyone else it does not exist (404), so ids do not tell. It receives only
 * what its owner may view (dispatcher.ts).
 */
import type { Principal } from '../auth/users.js';
import { eventPrefix } from '../audit/capture-triggers.js';
import { FILE_UPLOADED, slotsOf } from '../files/file-rows.js';
import type { EngineTableWrites } from '../declare/engine-table.js';
import { webUrlSchema } from '../fields/strings.js';
import type { Resource } from '../registry/resource.js';
import { frag, TRUE, type Fragment } from '../storage/sql.js';

/** The event names of `resources`. */
export function eventNames(resources: readonly Resource[]): string[] {
  return resources.flatMap((r) => {
    const kinds = [
      'created',
      'updated',
      'deleted',
      ...(r.fields.some((f) => f.spec.type === 'state') ? ['state_changed'] : []),
      ...(slotsOf(r).length ? [FILE_UPLOADED] : []),
      ...(r.declaration.events ?? []),
    ];
    return kinds.map((k) => `${eventPrefix(r)}.${k}`);
  });
}

export const URL_DESCRIPTION = 'Where deliveries are POSTed: an http or https URL with a host.';
export const ACTIVE_DESCRIPTION = 'Inactive subscriptions get no new events (default true).';

/** `events` as JSON Schema: some of the event names. */
export const eventsSchema = (events: readonly string[]) => ({
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: { type: 'string', enum: events },
  description: 'Event names, `<module>.<resource>.<created|updated|deleted|state_changed|file_uploaded>`, e.g. `issue.issue.created`; `file_uploaded` (resources with files) comes with each upload, beside its `updated`.',
});

/** The body's JSON Schema (`required` left out when empty, as OpenAPI 3.0 asks). */
const subscriptionBody = (events: readonly string[], required: readonly string[]) => ({
  type: 'object',
  properties: {
    url: { ...webUrlSchema(2000), description: URL_DESCRIPTION },
    events: eventsSchema(events),
    secret: { type: 'string', minLength: 16, maxLength: 255, writeOnly: true, description: 'Key of the HMAC-SHA256 signature in `X-BMS-Signature`; never served.' },
    active: { type: 'boolean', description: ACTIVE_DESCRIPTION },
  },
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});

/** The subscriptions (row `alias`) `user` owns: all of them for a superuser. */
export const ownedBy = (user: Principal, alias: string): Fragment => (user.isSuperuser ? TRUE : frag(`${alias}.created_by = ?`, [user.id]));

/** The row a checked body writes: the fields sent, each event once. */
function columns({ url, events, secret, active }: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const row: Record<string, unknown> = { url, events: Array.isArray(events) ? [...new Set(events)] : undefined, secret, active };
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}

/** A subscription's writes: its owner is its creator, its secret stored as sent. */
export function subscriptionWrites(resources: readonly Resource[]): EngineTableWrites {
  const events = eventNames(resources);
  return {
    body: (mode) => subscriptionBody(events, mode === 'create' ? ['url', 'events', 'secret'] : []),
    example: { url: 'https://hooks.example.com/bms', events: events.slice(0, 2), secret: 'at-least-sixteen-characters', active: true },
    create: async (db, user, values) => {
      const [{ id }] = (await db('webhook_subscriptions').insert({ ...columns(values), created_by: user.id }).returning('id')) as [{ id: number }];
      return id;
    },
    update: async (db, _user, id, values) => {
      await db('webhook_subscriptions').where({ id }).update({ ...columns(values), modified: db.fn.now() });
    },
    remove: async (db, _user, id) => (await db('webhook_subscriptions').where({ id }).delete()) > 0,
  };
}
