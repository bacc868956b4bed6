/**
 * Every instance's dispatcher: it claims due deliveries from the outbox (`webhook_deliveries`, filled
 * by the change capture in the writing transaction) with `FOR UPDATE SKIP LOCKED`, so instances never
 * claim the same one. A claim commits at once and leases the delivery for longer than an attempt can
 * take; the POST happens outside any transaction, then its outcome is written. A process that dies
 * mid-attempt leaves the lease to expire, and the delivery is attempted again (same delivery id).
 * Deliveries of an inactive subscription wait until it is active again.
 * Each attempt sends only what the subscription's owner may view now: their principal as sign-in
 * loads it (an inactive, deleted or missing owner has none), the record as its event recorded it,
 * under the owner's view permission and rule, and serialised as the API serves it (for a delete,
 * only its id). A delivery the owner may not view is dropped from the outbox unsent.
 * Failures are retried after `retryBaseMs`, doubling each time up to `retryMaxMs`, 10 attempts at most.
 */
import type { Knex } from 'knex';
import type { WebhookSettings } from '../config.js';
import { loadPrincipals, type Principal } from '../auth/users.js';
import { rowsOf } from '../crud/rows.js';
import { isoTimestamp } from '../fields/values.js';
import type { Logger } from '../log.js';
import type { Resource } from '../registry/resource.js';
import { fieldMask } from '../access/field-permissions.js';
import { revealValues } from '../storage/field-encryption.js';
import { jsonRows, ROW } from '../storage/serialise.js';
import { frag, type Fragment } from '../storage/sql.js';
import { asRecorded } from './deliveries.js';
import { DELIVERY_TIMEOUT_MS, send } from './send.js';

export const MAX_ATTEMPTS = 10;
/** Deliveries one claim takes: they are attempted at once. */
const CLAIM = 20;
/** A claimed delivery is not claimed again before this: longer than an attempt can last. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

interface Claimed {
  id: string;
  uuid: string;
  event: string;
  resource: string;
  record_id: number;
  at: string;
  attempts: number;
  url: string;
  secret: string;
  owner: number | null;
}

/** The data of a delivery of `resource` as `owner` reads it; for a delete only the id (the record is gone: what else it held is no one's now). */
function asOwnerReads(resource: Resource, owner: Principal, deleted: boolean): Fragment | undefined {
  const seen = asRecorded(resource, owner, 'wd');
  // the select list of lists and details as `owner` reads them, so what they leave out (field permissions too) a delivery leaves out
  return seen && frag(jsonRows(deleted ? `${ROW}.id` : fieldMask(resource, owner).list(), seen.sql), seen.bindings);
}

/** The wait before attempt `attempts + 1`. */
export const backoffMs = (s: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>, attempts: number): number =>
  Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.min(attempts - 1, 30));

export class Dispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Attempts by outcome since start (for /metrics). */
  readonly outcomes = { delivered: 0, retrying: 0, failed: 0 };

  private readonly resources: ReadonlyMap<string, Resource>;

  constructor(
    private readonly db: Knex,
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
    resources: readonly Resource[],
  ) {
    this.resources = new Map(resources.map((r) => [r.key, r]));
  }

  start(): void {
    this.schedule();
  }

  /** Stops claiming and waits for the attempts under way (10 s at most). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .catch((err: unknown) => this.log.warn({ err }, 'webhook dispatch failed'))
        .finally(() => this.schedule());
    }, this.settings.pollMs);
  }

  /** Claims and attempts until nothing is due. */
  private async drain(): Promise<void> {
    for (let batch = await this.claim(); batch.length && !this.stopped; batch = await this.claim()) {
      const data = await this.payloads(batch);
      const withheld = batch.filter((d) => !data.has(String(d.id))).map((d) => d.id);
      if (withheld.length) await this.db('webhook_deliveries').whereIn('id', withheld).delete();
      await Promise.all(batch.filter((d) => data.has(String(d.id))).map((d) => this.attempt(d, data.get(String(d.id)))));
    }
  }

  private async claim(): Promise<Claimed[]> {
    const { rows } = (await this.db.raw(
      `update webhook_deliveries d set attempts = d.attempts + 1, next_attempt = now() + ? * interval '1 millisecond'
         from (select o.id from webhook_deliveries o join webhook_subscriptions a on a.id = o.subscription_id and a.active
                where o.status = 'pending' and o.next_attempt <= now() order by o.next_attempt limit ? for update of o skip locked) due,
              webhook_subscriptions s
        where d.id = due.id and s.id = d.subscription_id
        returning d.id, d.uuid, d.event, d.resource, d.record_id, ${isoTimestamp('d.at')} as at, d.attempts, s.url, s.secret, s.created_by as owner`,
      [LEASE_MS, CLAIM],
    )) as { rows: Claimed[] };
    return rows;
  }

  /**
   * The data of each delivery of `batch` whose owner may view its record, by delivery id: one
   * statement, a branch per owner, resource and kind (delete or not) in the batch.
   */
  private async payloads(batch: readonly Claimed[]): Promise<Map<string, unknown>> {
    const owners = await loadPrincipals(this.db, [...new Set(batch.flatMap((d) => (d.owner === null ? [] : [d.owner])))]);
    const groups = new Map<string, { data: Fragment | undefined; ids: string[] }>();
    for (const d of batch) {
      const [owner, resource] = [d.owner === null ? undefined : owners.get(d.owner), this.resources.get(d.resource)];
      if (!owner || !resource) continue;
      const deleted = d.event.endsWith('.deleted');
      const key = `${owner.id} ${resource.key} ${deleted}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { data: asOwnerReads(resource, owner, deleted), ids: [] }));
      group.ids.push(d.id);
    }
    const branches = [...groups.values()].flatMap(({ data, ids }) =>
      data ? [frag(`select wd.id, x.json from webhook_deliveries wd cross join lateral (${data.sql}) x where wd.id in (${ids.map(() => '?').join(', ')})`, [...data.bindings, ...ids])] : [],
    );
    if (!branches.length) return new Map();
    const rows = rowsOf(await this.db.raw(branches.map((b) => b.sql).join(' union all '), branches.flatMap((b) => b.bindings) as Knex.RawBinding[]));
    return new Map(rows.map((r) => [String(r.id), JSON.parse(r.json as string)]));
  }

  private async attempt(d: Claimed, data: unknown): Promise<void> {
    const body = revealValues(JSON.stringify({ event: d.event, resource: d.resource, id: d.record_id, data, at: d.at }));
    try {
      await send({ url: d.url, secret: d.secret, event: d.event, id: d.uuid, body }, this.settings.allowPrivate);
      await this.db('webhook_deliveries').where({ id: d.id }).update({ status: 'delivered', delivered_at: this.db.fn.now(), next_attempt: null, last_error: null });
      this.outcomes.delivered++;
    } catch (err) {
      const error = String((err as Error).message ?? err).slice(0, 1000);
      const last = d.attempts >= MAX_ATTEMPTS;
      await this.db('webhook_deliveries')
        .where({ id: d.id })
        .update({
          status: last ? 'failed' : 'pending',
          last_error: error,
          next_attempt: last ? null : this.db.raw(`now() + ? * interval '1 millisecond'`, [backoffMs(this.settings, d.attempts)]),
        });
      this.outcomes[last ? 'failed' : 'retrying']++;
      this.log.info({ delivery: d.uuid, event: d.event, attempts: d.attempts, error }, last ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry');
    }
  }
}
