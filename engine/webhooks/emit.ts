/**
 * Events the change capture does not send (a schedule's `review_due`, a file's `file_uploaded`):
 * queued in the writing transaction, one delivery per active subscription naming the event, with
 * the record's values now as the capture records them; the dispatcher serves `data` as the owner reads it.
 */
import type { Knex } from 'knex';
import { capturedColumns, eventPrefix } from '../audit/capture-triggers.js';
import type { Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';

/** Queues `<module>.<resource>.<event>` for the records `ids` of `resource`. */
export async function emitEvent(trx: Knex.Transaction, resource: Resource, event: string, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  const name = `${eventPrefix(resource)}.${event}`;
  await trx.raw(
    `insert into webhook_deliveries (subscription_id, event, resource, record_id, data)
     select s.id, ?, ?, r.id, jsonb_build_object('id', r.id) || (select coalesce(jsonb_object_agg(key, value), '{}') from jsonb_each(to_jsonb(r)) where key = any(?::text[]))
       from ${q(resource.table)} r, webhook_subscriptions s
      where s.active and ? = any(s.events) and r.id = any(?::int[])`,
    [name, resource.key, capturedColumns(resource).recorded, name, [...ids]],
  );
}
