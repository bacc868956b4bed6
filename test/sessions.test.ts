/** Session sign-in, CSRF, throttling, and the token management API (CONTRACT 6). */
import { expect } from 'chai';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from './support/hooks.js';
import { makeUser, unique } from './support/fixtures.js';
import { SessionClient } from './support/browser-session.js';
import { Client } from './support/client.js';

const PASSWORD = 'correct-horse-1';

describe('sessions', () => {
  afterEach(async () => {
    // failed sign-ins from 127.0.0.1 would otherwise throttle later tests
    await suite().service.db('login_failures').delete();
  });

  it('signs in with a server-side session, an HttpOnly SameSite=Lax cookie and a CSRF cookie', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const browser = new SessionClient(suite().service.url);
    const res = await browser.login(user.username, PASSWORD);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ id: user.id, username: user.username });
    expect(res.body.permissions).to.deep.equal(['issues.view_tracker']);
    expect(res.body).to.not.have.property('password');
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('sessionid='))!;
    expect(session).to.match(/httponly/i).and.match(/samesite=lax/i).and.not.match(/secure/i);
    const csrf = cookies.find((c) => c.startsWith('csrftoken='))!;
    expect(csrf).to.not.match(/httponly/i);
    const row = await suite().service.db('sessions').where('id', browser.sessionId!).first();
    expect(row.data.userId).to.equal(user.id);
    const me = await browser.request('GET', '/api/auth/me');
    expect(me.status).to.equal(200);
    expect(me.body.username).to.equal(user.username);
    expect((await browser.request('GET', '/api/issue/tracker')).status).to.equal(200);
  });

  it('lists every permission for a superuser in /me', async () => {
    const me = await suite().admin.get('/api/auth/me');
    expect(me.body.is_superuser).to.equal(true);
    expect(me.body.permissions).to.include('issues.view_tracker').and.include('dms.delete_document').and.include('users.change_user');
  });

  it('ends the other sessions of a user whose password changes, keeps the one that changed it and the tokens (issue 8.5)', async () => {
    const user = await makeUser({ permissions: ['users.view_user', 'users.change_user'] });
    const [mine, other, third] = [0, 1, 2].map(() => new SessionClient(suite().service.url));
    for (const b of [mine!, other!, third!]) expect((await b.login(user.username, PASSWORD)).status).to.equal(200);
    const changed = await mine!.request('PATCH', `/api/user/${user.id}`, { body: { password: 'a-brand-new-one' }, csrf: true });
    expect(changed.status, changed.text).to.equal(200);
    expect((await mine!.request('GET', '/api/auth/me')).status).to.equal(200);
    expect((await other!.request('GET', '/api/auth/me')).status).to.equal(401);
    expect((await user.client.get('/api/auth/me')).status).to.equal(200);
    // an administrator's change ends them all
    expect((await suite().admin.patch(`/api/user/${user.id}`, { password: 'yet-another-one' })).status).to.equal(200);
    expect((await mine!.request('GET', '/api/auth/me')).status).to.equal(401);
    expect((await third!.request('GET', '/api/auth/me')).status).to.equal(401);
    expect((await user.client.get('/api/auth/me')).status).to.equal(200);
  });

  it('gives a new session id at sign-in (no fixation)', async () => {
    const user = await makeUser();
    const browser = new SessionClient(suite().service.url);
    await browser.login(user.username, PASSWORD);
    const first = browser.sessionId;
    await browser.login(user.username, PASSWORD);
    expect(browser.sessionId).to.be.a('string').and.not.equal(first);
    expect(await suite().service.db('sessions').where('id', first!).first()).to.equal(undefined);
  });

  it('is served by any instance, since the session lives in the database', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const browser = new SessionClient(suite().service.url);
    await browser.login(user.username, PASSWORD);
    const other = createApp({ db: suite().service.db, registry: await loadRegistry(), log: createLogger('silent') });
    const server = http.createServer(other.koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const elsewhere = browser.withCookies(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const res = await elsewhere.request('GET', '/api/auth/me');
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(user.id);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  describe('CSRF for writes under a session', () => {
    let browser: SessionClient;
    before(async () => {
      const user = await makeUser({ permissions: ['issues.view_tracker', 'issues.add_tracker'] });
      browser = new SessionClient(suite().service.url);
      await browser.login(user.username, PASSWORD);
    });
    it('missing → 403 CSRF token missing', async () => {
      const res = await browser.request('POST', '/api/issue/tracker', { body: { title: 'no csrf' } });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ detail: 'CSRF Failed: CSRF token missing.' });
    });
    it('wrong → 403 CSRF token incorrect', async () => {
      const res = await browser.request('POST', '/api/issue/tracker', { body: { title: 'bad csrf' }, csrf: 'not-the-token' });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ detail: 'CSRF Failed: CSRF token incorrect.' });
    });
    it('right → the write goes through', async () => {
      const res = await browser.request('POST', '/api/issue/tracker', { body: { title: 'with csrf' }, csrf: true });
      expect(res.status, res.text).to.equal(201);
    });
    it('reads need none', async () => {
      expect((await browser.request('GET', '/api/issue/tracker')).status).to.equal(200);
    });
    it('token-authenticated writes need none', async () => {
      expect((await suite().admin.post('/api/issue/tracker', { title: 'token write' })).status).to.equal(201);
    });
  });

  it('answers the same for an unknown user, a wrong password and an inactive user', async () => {
    const user = await makeUser();
    const inactive = await makeUser();
    await suite().admin.patch(`/api/user/${inactive.id}`, { is_active: false });
    const answers = [];
    for (const [name, pw] of [[`nobody-${Date.now()}`, PASSWORD], [user.username, 'wrong-password'], [inactive.username, PASSWORD]] as const) {
      const res = await new SessionClient(suite().service.url).login(name, pw);
      answers.push([res.status, res.body]);
    }
    for (const a of answers) expect(a).to.deep.equal([400, { non_field_errors: ['Unable to log in with provided credentials.'] }]);
  });

  it('refuses a sign-in body that is not an object, as every endpoint does', async () => {
    const res = await new SessionClient(suite().service.url).request('POST', '/api/auth/login', { body: ['admin', 'pw'] });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ detail: 'Invalid data. Expected a dictionary, but got list.' });
  });

  it('validates the sign-in body', async () => {
    const res = await new SessionClient(suite().service.url).request('POST', '/api/auth/login', { body: { username: '' } });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ username: ['This field may not be blank.'], password: ['This field is required.'] });
  });

  it('throttles failed sign-ins per username with 429 and Retry-After, even for the right password', async () => {
    const user = await makeUser();
    const browser = new SessionClient(suite().service.url);
    for (let i = 0; i < 5; i++) expect((await browser.login(user.username, 'wrong-password')).status).to.equal(400);
    const blocked = await browser.login(user.username, PASSWORD);
    expect(blocked.status).to.equal(429);
    const seconds = Number(blocked.headers.get('retry-after'));
    expect(seconds).to.be.within(1, 900);
    expect(blocked.body).to.deep.equal({ detail: `Request was throttled. Expected available in ${seconds} seconds.` });
    const other = await makeUser();
    expect((await browser.login(other.username, PASSWORD)).status).to.equal(200);
  });

  it('throttles failed sign-ins per address across usernames (50)', async () => {
    const browser = new SessionClient(suite().service.url);
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => browser.login(unique('ghost'), 'wrong-password')));
      expect(answers.map((r) => r.status)).to.deep.equal(Array(10).fill(400));
    }
    const user = await makeUser();
    expect((await browser.login(user.username, PASSWORD)).status).to.equal(429);
  });

  describe('a fair throttle (issue 13.6), behind a proxy (TRUST_PROXY: the address is the last X-Forwarded-For entry)', () => {
    let server: http.Server;
    let proxied: Client;
    before(async () => {
      const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log: createLogger('silent'), trustProxy: true });
      server = http.createServer(app.koa.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      proxied = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
    after(async () => new Promise<void>((r) => server.close(() => r())));

    const login = (username: string, password: string, address: string) =>
      proxied.post('/api/auth/login', { username, password }, { token: null, headers: { 'X-Forwarded-For': address } });

    it('checks no more than 5 guesses of a parallel burst', async () => {
      const user = await makeUser();
      const burst = await Promise.all(Array.from({ length: 30 }, () => login(user.username, 'wrong-password', '198.51.100.1')));
      const statuses = burst.map((r) => r.status);
      expect(statuses.filter((s) => s === 400), 'guesses checked').to.have.length(5);
      expect(statuses.filter((s) => s === 429)).to.have.length(25);
      expect((await login(user.username, PASSWORD, '198.51.100.1')).status, 'from the same address, even the right password').to.equal(429);
    });

    it("does not lock the real user out from another address by someone else's guesses, however many are refused", async () => {
      const user = await makeUser();
      for (let i = 0; i < 5; i++) expect((await login(user.username, 'wrong-password', '198.51.100.2')).status).to.equal(400);
      // refused attempts check no password: counted, these 120 would pass the username's limit of 100
      for (let batch = 0; batch < 12; batch++) {
        const refused = await Promise.all(Array.from({ length: 10 }, () => login(user.username, 'wrong-password', '198.51.100.2')));
        expect(refused.map((r) => r.status)).to.deep.equal(Array(10).fill(429));
      }
      const own = await login(user.username, PASSWORD, '203.0.113.9');
      expect(own.status, own.text).to.equal(200);
    });

    it('throttles a username over all addresses after 100 failures, but not from where its owner signed in (issue 22.8)', async function () {
      // 100 password checks (scrypt): seconds on a quiet machine, far more on a loaded one
      this.timeout(180_000);
      const user = await makeUser();
      expect((await login(user.username, PASSWORD, '203.0.113.20')).status, 'the owner, before the attack').to.equal(200);
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => login(user.username, 'wrong-password', `192.0.2.${batch * 10 + i}`)));
        expect(answers.map((r) => r.status)).to.deep.equal(Array(10).fill(400));
      }
      expect((await login(user.username, 'wrong-password', '192.0.2.200')).status, 'the attacker, from a new address').to.equal(429);
      const blocked = await login(user.username, PASSWORD, '203.0.113.10');
      expect(blocked.status, 'the owner, from an address never signed in from').to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 900);
      const own = await login(user.username, PASSWORD, '203.0.113.20');
      expect(own.status, `the owner, from a known address: ${own.text}`).to.equal(200);
      // guessing from a known address (a shared NAT) stays bounded by the pair's limit
      for (let i = 0; i < 5; i++) expect((await login(user.username, 'wrong-password', '203.0.113.20')).status).to.equal(400);
      expect((await login(user.username, PASSWORD, '203.0.113.20')).status).to.equal(429);
    });
  });

  it('signs out: the session stops working and its CSRF cookie is cleared', async () => {
    const user = await makeUser();
    const browser = new SessionClient(suite().service.url);
    await browser.login(user.username, PASSWORD);
    const id = browser.sessionId!;
    expect((await browser.request('POST', '/api/auth/logout')).status).to.equal(403);
    expect((await browser.request('POST', '/api/auth/logout', { csrf: true })).status).to.equal(204);
    expect(browser.csrf).to.equal(undefined);
    expect(await suite().service.db('sessions').where('id', id).first()).to.equal(undefined);
    const stale = browser.withCookies(suite().service.url, { sessionid: id });
    expect((await stale.request('GET', '/api/auth/me')).status).to.equal(401);
  });

  it("stops a deactivated user's session", async () => {
    const user = await makeUser();
    const browser = new SessionClient(suite().service.url);
    await browser.login(user.username, PASSWORD);
    expect((await browser.request('GET', '/api/auth/me')).status).to.equal(200);
    await suite().admin.patch(`/api/user/${user.id}`, { is_active: false });
    expect((await browser.request('GET', '/api/auth/me')).status).to.equal(401);
  });

  it('ends a deactivated user\'s sessions for good, whatever path deactivates: reactivating brings none back (issue 22.6)', async () => {
    const { admin, service } = suite();
    const user = await makeUser();
    const deactivations = [
      () => admin.patch(`/api/user/${user.id}`, { is_active: false }),
      () => admin.put(`/api/user/${user.id}`, { username: user.username, is_active: false }),
      () => service.db('users').where({ id: user.id }).update({ is_active: false }),
    ];
    for (const deactivate of deactivations) {
      const browser = new SessionClient(service.url);
      expect((await browser.login(user.username, PASSWORD)).status).to.equal(200);
      await deactivate();
      expect((await browser.request('GET', '/api/auth/me')).status).to.equal(401);
      expect((await admin.patch(`/api/user/${user.id}`, { is_active: true })).status).to.equal(200);
      expect((await browser.request('GET', '/api/auth/me')).status, String(deactivate)).to.equal(401);
      const again = new SessionClient(service.url);
      expect((await again.login(user.username, PASSWORD)).status).to.equal(200);
      expect((await again.request('GET', '/api/auth/me')).status).to.equal(200);
    }
  });

  it('does not write back a session ended while its request ran, even one due for renewal (issue 22.6)', async () => {
    const { admin, service } = suite();
    const user = await makeUser({ permissions: ['users.view_user', 'users.change_user'] });
    const browser = new SessionClient(service.url);
    expect((await browser.login(user.username, PASSWORD)).status).to.equal(200);
    // a day left of fourteen: koa-session renews it when the request ends
    await service.db('sessions').where('id', browser.sessionId!).update({ data: service.db.raw(`data || jsonb_build_object('_expire', ?::bigint)`, [Date.now() + 24 * 3600 * 1000]) });
    const own = await browser.request('PATCH', `/api/user/${user.id}`, { body: { is_active: false }, csrf: true });
    expect(own.status, own.text).to.equal(200);
    expect((await admin.patch(`/api/user/${user.id}`, { is_active: true })).status).to.equal(200);
    expect((await browser.request('GET', '/api/auth/me')).status).to.equal(401);
  });
});

describe('token management API', () => {
  it('creates a token shown once, lists and revokes only the caller’s own', async () => {
    const alice = await makeUser({ permissions: ['issues.view_tracker'] });
    const bob = await makeUser();
    const created = await alice.client.post('/api/auth/tokens', { name: 'HR integration', expires: null });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'HR integration', last_used: null, expires: null });
    expect(created.body.token).to.match(/^[0-9a-f]{64}$/);
    const list = await alice.client.get('/api/auth/tokens');
    expect(list.body.map((t: any) => t.name)).to.deep.equal(['test', 'HR integration']);
    expect(JSON.stringify(list.body)).to.not.include(created.body.token);
    for (const t of list.body) expect(Object.keys(t).sort()).to.deep.equal(['created', 'expires', 'id', 'last_used', 'name']);
    expect((await bob.client.get('/api/auth/tokens')).body.map((t: any) => t.id)).to.not.include(created.body.id);
    expect((await bob.client.delete(`/api/auth/tokens/${created.body.id}`)).status).to.equal(404);

    const issued = alice.client.as(created.body.token);
    expect((await issued.get('/api/issue/tracker')).status).to.equal(200);
    expect((await alice.client.get('/api/auth/tokens')).body.find((t: any) => t.id === created.body.id).last_used).to.be.a('string');
    expect((await alice.client.delete(`/api/auth/tokens/${created.body.id}`)).status).to.equal(204);
    const revoked = await issued.get('/api/issue/tracker');
    expect(revoked.status).to.equal(401);
    expect(revoked.body).to.deep.equal({ detail: 'Invalid token.' });
  });

  it('expires tokens at their expiry time', async () => {
    const user = await makeUser();
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await user.client.post('/api/auth/tokens', { name: 'short-lived', expires: soon });
    expect(created.status).to.equal(201);
    expect(created.body.expires).to.equal(soon);
    const token = user.client.as(created.body.token);
    expect((await token.get('/api/auth/me')).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1700));
    const expired = await token.get('/api/auth/me');
    expect(expired.status).to.equal(401);
    expect(expired.body.detail).to.equal('Invalid token.');
  });

  it('validates the body', async () => {
    const user = await makeUser();
    const res = await user.client.post('/api/auth/tokens', { name: '', expires: 'tomorrow', colour: 'x' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      name: ['This field may not be blank.'],
      expires: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'],
      colour: ['Unknown field.'],
    });
    expect((await user.client.post('/api/auth/tokens', { name: 'x', expires: '2001-01-01T00:00:00Z' })).body).to.deep.equal({
      expires: ['Must be in the future.'],
    });
    expect((await user.client.post('/api/auth/tokens', {})).body).to.deep.equal({ name: ['This field is required.'] });
  });

  it('needs authentication', async () => {
    expect((await suite().admin.get('/api/auth/tokens', { token: null })).status).to.equal(401);
    expect((await suite().admin.get('/api/auth/me', { token: null })).status).to.equal(401);
  });
});
