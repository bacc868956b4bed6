/**
 * Webhooks: subscriptions and the delivery log over HTTP, and deliveries to a real receiving server
 * on loopback: body, headers and signature; retries; no loss across a restart between the write's
 * commit and its delivery; no duplicate with two instances on one database. Delivering services run
 * in-process on a database of their own, so no other dispatcher takes their deliveries. Owners of
 * different reach on one event stream: each receives only what they may view, as they read it.
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
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
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

  it('sends file_uploaded with each upload, its data showing the file, to subscribers of resources with files only', async () => {
    const refused = await admin.post('/api/webhook/subscription', { url, events: ['issue.tracker.file_uploaded'], secret: SECRET });
    expect(refused.body).to.deep.equal({ events: ['"issue.tracker.file_uploaded" is not a valid choice.'] });
    const subscription = await subscribe(admin, url, ['issue.issue.file_uploaded']);
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('files') });
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'With a file' });
    const upload = await admin.request('POST', `/api/issue/issue/${issue.id}/attachments`, { raw: 'a,b\n1,2\n', headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="data.csv"' } });
    expect(upload.status, upload.text).to.equal(201);
    const [delivered] = await until('the upload event', async () => {
      const d = await deliveries(admin, `&subscription=${subscription.id}&status=delivered`);
      return d.length ? d : undefined;
    });
    expect(delivered).to.include({ event: 'issue.issue.file_uploaded', resource: 'issue/issue', record_id: issue.id });
    const sent = receiver.received.find((r) => r.body.event === 'issue.issue.file_uploaded')!;
    expect(sent.headers['x-bms-event']).to.equal('issue.issue.file_uploaded');
    expect(sent.body.data.attachments).to.deep.equal([upload.body]);
  });
});

describe("webhook deliveries follow their owner's reach", function () {
  this.timeout(60_000);
  const instances = new Instances();
  const receivers = { wide: new WebhookReceiver(), narrow: new WebhookReceiver(), none: new WebhookReceiver(), admin: new WebhookReceiver() };
  const HOOKS = ['webhook.add_subscription', 'webhook.view_subscription', 'webhook.change_subscription', 'webhook.delete_subscription', 'webhook.view_delivery'];
  const EVENTS = ['issue.issue.created', 'issue.issue.updated', 'issue.issue.deleted', 'users.user.created'];
  let on: { service: RunningService; admin: Client };
  let wide: TestUser, narrow: TestUser, none: TestUser;
  const subscriptions: Record<string, any> = {};
  let [open, secret, plain]: any[] = [];

  /** What a receiver got, as `<event> <id>`, sorted. */
  const got = (name: keyof typeof receivers) => receivers[name].received.map((r) => `${r.body.event} ${r.body.id}`).sort();
  const body = (name: keyof typeof receivers, event: string, id: number) => receivers[name].received.find((r) => r.body.event === event && r.body.id === id)?.body;
  /** Every event written so far is delivered or dropped. */
  const settled = () => until('the outbox to empty', async () => ((await deliveries(on.admin, '&status=pending')).length ? undefined : true));

  before(async () => {
    await instances.open();
    on = await instances.start();
    const VIEW = ['issues.view_issue', 'issues.view_tracker', ...HOOKS];
    // wide: administers the confidential tracker and reads users; narrow: sees open trackers' issues; none: no issues at all
    wide = await makeUser({ permissions: [...VIEW, 'users.view_user'] }, on);
    narrow = await makeUser({ permissions: VIEW }, on);
    none = await makeUser({ permissions: ['webhook.add_subscription'] }, on);
    for (const [name, user] of [['wide', wide], ['narrow', narrow], ['none', none]] as const) subscriptions[name] = await subscribe(user.client, await receivers[name].start(), EVENTS);
    subscriptions.admin = await subscribe(on.admin, await receivers.admin.start(), ['issue.issue.created']);
    open = await created(on.admin, '/api/issue/tracker', { title: unique('open') });
    secret = await created(on.admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential', admin_ids: [wide.id] });
  });
  after(async () => {
    await instances.close();
    for (const r of Object.values(receivers)) await r.stop();
  });

  it('sends each owner exactly the records they may view, as the API serves them to that owner', async () => {
    expect((await none.client.get('/api/issue/issue')).status).to.equal(403);
    plain = await created(on.admin, '/api/issue/issue', { tracker_id: open.id, title: unique('plain') });
    const hidden = await created(on.admin, '/api/issue/issue', { tracker_id: secret.id, title: unique('hidden') });
    const person = await created(on.admin, '/api/user', { username: unique('person'), email: 'person@example.com', password: 'correct-horse-1' });
    await settled();
    expect(got('wide')).to.deep.equal([`issue.issue.created ${plain.id}`, `issue.issue.created ${hidden.id}`, `users.user.created ${person.id}`].sort());
    expect(got('narrow')).to.deep.equal([`issue.issue.created ${plain.id}`]);
    expect(got('none')).to.deep.equal([]);
    expect(body('wide', 'issue.issue.created', hidden.id).data).to.deep.equal((await wide.client.get(`/api/issue/issue/${hidden.id}`)).body);
    expect(body('narrow', 'issue.issue.created', plain.id).data).to.deep.equal((await narrow.client.get(`/api/issue/issue/${plain.id}`)).body);
    // the e-mail address only to the owner who may read users
    expect(body('wide', 'users.user.created', person.id).data).to.deep.equal((await wide.client.get(`/api/user/${person.id}`)).body);

    // as of the event: moved into the confidential tracker, the issue is no longer the narrow owner's to see
    expect((await on.admin.patch(`/api/issue/issue/${plain.id}`, { tracker_id: secret.id })).status).to.equal(200);
    expect((await on.admin.delete(`/api/issue/issue/${hidden.id}`)).status).to.equal(204);
    await settled();
    expect(got('narrow')).to.deep.equal([`issue.issue.created ${plain.id}`]);
    expect(body('wide', 'issue.issue.updated', plain.id).data.tracker).to.equal(secret.id);
    // a deleted record: its id alone
    expect(body('wide', 'issue.issue.deleted', hidden.id).data).to.deep.equal({ id: hidden.id });
  });

  it("lets no one but its owner or a superuser read, change or delete a subscription or its deliveries", async () => {
    const theirs = subscriptions.wide.id;
    const c = narrow.client;
    expect((await c.get('/api/webhook/subscription')).body.map((s: any) => s.id)).to.deep.equal([subscriptions.narrow.id]);
    expect((await c.get(`/api/webhook/subscription/${theirs}`)).status).to.equal(404);
    expect((await c.patch(`/api/webhook/subscription/${theirs}`, { url: 'https://thief.example.com/' })).status).to.equal(404);
    expect((await c.put(`/api/webhook/subscription/${theirs}`, { url: 'https://thief.example.com/', events: EVENTS, secret: SECRET })).status).to.equal(404);
    expect((await c.delete(`/api/webhook/subscription/${theirs}`)).status).to.equal(404);
    expect((await on.admin.get(`/api/webhook/subscription/${theirs}`)).body.url).to.equal(subscriptions.wide.url);
    expect((await deliveries(c)).map((d) => `${d.subscription} ${d.event} ${d.record_id}`)).to.deep.equal([`${subscriptions.narrow.id} issue.issue.created ${plain.id}`]);
    expect(await deliveries(c, `&subscription=${theirs}`)).to.deep.equal([]);
    const [other] = await deliveries(wide.client);
    expect((await c.get(`/api/webhook/delivery/${other.id}`)).status).to.equal(404);
    expect((await on.admin.get(`/api/webhook/delivery/${other.id}`)).status).to.equal(200);
    // a delivery is listed to its owner while they may view its record as its event left it
    expect((await on.admin.patch(`/api/issue/tracker/${open.id}`, { visibility: 'confidential' })).status).to.equal(200);
    expect(await deliveries(c)).to.deep.equal([]);
  });

  it('stops delivering to an owner who loses the permission or is deactivated', async () => {
    expect((await on.admin.patch(`/api/user/${narrow.id}`, { group_ids: [] })).status).to.equal(200);
    expect((await on.admin.patch(`/api/user/${wide.id}`, { is_active: false })).status).to.equal(200);
    const [wideHad, narrowHad] = [got('wide'), got('narrow')];
    const later = await created(on.admin, '/api/issue/issue', { tracker_id: open.id, title: unique('later') });
    await until('the superuser owner to receive it', () => (body('admin', 'issue.issue.created', later.id) ? true : undefined));
    await settled();
    expect(got('wide')).to.deep.equal(wideHad);
    expect(got('narrow')).to.deep.equal(narrowHad);
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
