/**
 * Webhooks: subscriptions and the delivery log over HTTP, and deliveries to a real receiving server
 * on loopback: body, headers and signature; retries; no loss across a restart between the write's
 * commit and its delivery; no duplicate with two instances on one database. Delivering services run
 * in-process on a database of their own, so no other dispatcher takes their deliveries.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { ServerConfig } from '../engine/config.js';
import { createToken } from '../engine/auth/tokens.js';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { send } from '../engine/webhooks/send.js';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = 'a-secret-of-sixteen-or-more';

describe('webhook subscriptions and deliveries over HTTP', () => {
  it('creates, lists, changes and deletes a subscription, never serving its secret', async () => {
    const { admin, adminId } = suite();
    const res = await admin.post('/api/webhook/subscription', { url: 'https://hooks.example.com/in', events: ['issue.issue.created', 'issue.issue.state_changed'], secret: SECRET });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ url: 'https://hooks.example.com/in', active: true, created_by: adminId });
    expect(res.body.events).to.deep.equal(['issue.issue.created', 'issue.issue.state_changed']);
    expect(res.body).not.to.have.property('secret');
    const id = res.body.id;
    const patched = await admin.patch(`/api/webhook/subscription/${id}`, { active: false });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.active).to.equal(false);
    const listed = (await admin.get('/api/webhook/subscription?active=false')).body as any[];
    expect(listed.map((s) => s.id)).to.include(id);
    expect(JSON.stringify(listed)).not.to.include(SECRET);
    expect((await admin.put(`/api/webhook/subscription/${id}`, { url: 'http://hooks.example.com/b', events: ['users.user.deleted'], secret: SECRET })).status).to.equal(200);
    expect((await admin.delete(`/api/webhook/subscription/${id}`)).status).to.equal(204);
    expect((await admin.get(`/api/webhook/subscription/${id}`)).status).to.equal(404);
  });

  it('refuses bad subscriptions with every error at once, and non-http URLs', async () => {
    const { admin } = suite();
    const bad = await admin.post('/api/webhook/subscription', { url: 'ftp://example.com/x', events: ['issue.issue.created', 'issue.nothing.created', 'issue.category.state_changed'] });
    expect(bad.status).to.equal(400);
    expect(Object.keys(bad.body).sort()).to.deep.equal(['events', 'secret', 'url']);
    // a category has no lifecycle, so no state_changed event either
    expect(bad.body.events[0]).to.equal('"issue.nothing.created" is not a valid choice.');
    const stateless = await admin.post('/api/webhook/subscription', { url: 'https://a.example.com', events: ['issue.category.state_changed'], secret: SECRET });
    expect(stateless.body).to.deep.equal({ events: ['"issue.category.state_changed" is not a valid choice.'] });
  });

  it('refuses URLs no delivery can reach (issue 22.9): other schemes and none without a host', async () => {
    const { admin } = suite();
    for (const url of ['ftp://example.com/x', 'JaVaScRiPt:alert(1)', 'data:,x', 'http://', 'HTTPS://', 'http:///x', 'https://:443/x', 'http://a@/x']) {
      const res = await admin.post('/api/webhook/subscription', { url, events: ['issue.issue.created'], secret: SECRET });
      expect(res.status, url).to.equal(400);
      expect(res.body, url).to.deep.equal({ url: ['Enter a valid URL.'] });
    }
    expect((await admin.post('/api/webhook/subscription', { url: 'HTTPS://Hooks.Example.com:8443/in', events: ['issue.issue.created'], secret: SECRET })).status).to.equal(201);
  });

  it('checks the permissions, and serves deliveries read-only', async () => {
    const { admin } = suite();
    const reader = await makeUser({ permissions: ['webhook.view_subscription'] });
    expect((await reader.client.get('/api/webhook/subscription')).status).to.equal(200);
    expect((await reader.client.post('/api/webhook/subscription', { url: 'https://a.example.com', events: ['users.user.created'], secret: SECRET })).status).to.equal(403);
    expect((await reader.client.get('/api/webhook/delivery')).status).to.equal(403);
    expect((await admin.get('/api/webhook/delivery?status=pending')).status).to.equal(200);
    expect((await admin.get('/api/webhook/delivery?status=lost')).status).to.equal(400);
    expect((await admin.post('/api/webhook/delivery', {})).status).to.equal(405);
    expect((await admin.delete('/api/webhook/delivery/1')).status).to.equal(405);
  });

  it('refuses to deliver to a loopback address unless private addresses are allowed', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const delivery = { url, secret: SECRET, event: 'user.user.created', id: 'x', body: '{}' };
      let refused: unknown;
      await send(delivery, false).catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/loopback, private or link-local/);
      await send({ ...delivery, url: url.replace('127.0.0.1', 'localhost') }, false).catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/localhost .*private/);
      expect(receiver.received).to.deep.equal([]);
      await send(delivery, true);
      expect(receiver.received).to.have.length(1);
    } finally {
      await receiver.stop();
    }
  });
});

/** Services of their own on one database of their own, delivering to loopback at once. */
class Instances {
  private running: RunningService[] = [];
  private database!: TestDatabase;

  async open(): Promise<void> {
    this.database = await createTestDatabase();
  }

  async start(dispatch = true): Promise<{ service: RunningService; admin: Client }> {
    const overrides: Partial<ServerConfig> = { webhooks: { dispatch, allowPrivate: true, pollMs: 50, retryBaseMs: 100, retryMaxMs: 400 } };
    const service = await startService(testConfig(this.database, overrides), createLogger('silent'), { quiet: true });
    this.running.push(service);
    const { id } = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    return { service, admin: new Client(service.url, (await createToken(service.db, id, 'webhooks')).key) };
  }

  async stop(service: RunningService): Promise<void> {
    this.running = this.running.filter((s) => s !== service);
    await service.close();
  }

  async close(): Promise<void> {
    for (const s of this.running) await s.close();
    await this.database?.drop();
  }
}

const subscribe = async (admin: Client, url: string, events: string[]) => created(admin, '/api/webhook/subscription', { url, events, secret: SECRET });

const deliveries = async (admin: Client, query = '') => (await admin.get(`/api/webhook/delivery?limit=1000${query}`)).body as any[];

describe('webhook deliveries to a receiving server', function () {
  this.timeout(60_000);
  const instances = new Instances();
  const receiver = new WebhookReceiver(2);
  let url: string;
  let admin: Client;

  before(async () => {
    await instances.open();
    url = await receiver.start();
    ({ admin } = await instances.start());
  });
  after(async () => {
    await instances.close();
    await receiver.stop();
  });

  it('POSTs the event signed with the secret, retrying after the receiver failed twice with the same delivery id', async () => {
    const subscription = await subscribe(admin, url, ['issue.tracker.created', 'issue.tracker.state_changed']);
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('hooked') });
    const [delivered] = await until('the delivery', async () => {
      const d = await deliveries(admin, `&subscription=${subscription.id}&status=delivered`);
      return d.length ? d : undefined;
    });
    expect(delivered).to.include({ event: 'issue.tracker.created', resource: 'issue/tracker', record_id: tracker.id, attempts: 3, last_error: null, next_attempt: null });
    expect(receiver.received).to.have.length(3);
    const ids = receiver.received.map((r) => r.headers['x-bms-delivery']);
    expect(new Set(ids)).to.deep.equal(new Set([delivered.delivery]));
    const last = receiver.received[2]!;
    expect(last.headers['content-type']).to.equal('application/json');
    expect(last.headers['x-bms-event']).to.equal('issue.tracker.created');
    expect(last.headers['x-bms-signature']).to.equal(`sha256=${createHmac('sha256', SECRET).update(last.raw).digest('hex')}`);
    expect(last.body).to.include({ event: 'issue.tracker.created', resource: 'issue/tracker', id: tracker.id });
    expect(last.body.data).to.include({ id: tracker.id, title: tracker.title, state: 'draft' });
    expect(last.body.at).to.match(/^\d{4}-\d\d-\d\dT/);

    // a state change is its own event; `updated` was not subscribed to
    expect((await admin.patch(`/api/issue/tracker/${tracker.id}`, { state: 'approved' })).status).to.equal(200);
    await until('the state change', () => (receiver.received.length === 4 ? true : undefined));
    expect(receiver.received[3]!.body).to.include({ event: 'issue.tracker.state_changed', id: tracker.id });
    expect(receiver.received[3]!.body.data.state).to.equal('approved');
  });
});

describeWithServer('webhook deliveries across instances', 'two service instances on one database', function () {
  this.timeout(90_000);
  const instances = new Instances();
  const receiver = new WebhookReceiver();
  let url: string;

  before(async () => {
    await instances.open();
    url = await receiver.start();
  });
  after(async () => {
    await instances.close();
    await receiver.stop();
  });

  it('loses no event when the service stops between the commit and the delivery', async () => {
    const first = await instances.start(false);
    await subscribe(first.admin, url, ['issue.tracker.created']);
    const tracker = await created(first.admin, '/api/issue/tracker', { title: unique('kept') });
    expect((await deliveries(first.admin, '&status=pending')).map((d) => d.record_id)).to.deep.equal([tracker.id]);
    await instances.stop(first.service);
    expect(receiver.received).to.deep.equal([]);
    const second = await instances.start(true);
    await until('the delivery after the restart', () => (receiver.received.length ? true : undefined));
    expect(receiver.received.map((r) => r.body.id)).to.deep.equal([tracker.id]);
    await instances.stop(second.service);
  });

  it('delivers each of many events once with two instances dispatching', async () => {
    receiver.received.length = 0;
    const a = await instances.start(true);
    await instances.start(true);
    const made: number[] = [];
    for (let i = 0; i < 40; i++) made.push((await created(a.admin, '/api/issue/tracker', { title: unique(`many${i}`) })).id);
    await until('40 deliveries', async () => ((await deliveries(a.admin, '&status=delivered')).length >= 41 ? true : undefined));
    // a little longer: a duplicate would arrive now
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.received.map((r) => r.headers['x-bms-delivery']);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(receiver.received.map((r) => r.body.id).sort((x, y) => x - y)).to.deep.equal(made);
  });
});
