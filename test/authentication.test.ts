/** Token authentication before routing, and model permissions through groups (CONTRACT 4, 6, 7). */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { makeUser } from './support/fixtures.js';
import { SessionClient } from './support/browser-session.js';

describe('authentication', () => {
  const get = (path: string, headers: Record<string, string> = {}) => suite().admin.get(path, { token: null, headers });

  it('answers 401 without credentials, on any /api path, with WWW-Authenticate', async () => {
    for (const path of ['/api/issue/issue', '/api/organisation/mitarbeitende/1', '/api/no/such/thing', '/api']) {
      const res = await get(path);
      expect(res.status, path).to.equal(401);
      expect(res.body).to.deep.equal({ detail: 'Authentication credentials were not provided.' });
      expect(res.headers.get('www-authenticate')).to.equal('Token');
    }
  });

  it('matches paths case-sensitively: /API/... reaches no route, with or without credentials (issue 8.3)', async () => {
    for (const path of ['/API/user', '/Api/issue/issue', '/api/USER', '/API/auth/me', '/API/schema']) {
      // under the lower-case /api prefix an anonymous caller learns nothing before signing in
      const anonymous = await get(path);
      expect(anonymous.status, path).to.equal(path.startsWith('/api/') ? 401 : 404);
      const signedIn = await suite().admin.get(path);
      expect(signedIn.status, path).to.equal(404);
      expect(signedIn.body).to.deep.equal({ detail: 'Not found.' });
    }
  });

  it('runs no session write on an upper-case path, so CSRF cannot be skipped (issue 8.3)', async () => {
    const user = await makeUser();
    const browser = new SessionClient(suite().service.url);
    expect((await browser.login(user.username, 'correct-horse-1')).status).to.equal(200);
    expect((await browser.request('POST', '/API/auth/logout')).status).to.equal(404);
    expect((await browser.request('POST', '/api/auth/logout')).body).to.deep.equal({ detail: 'CSRF Failed: CSRF token missing.' });
    expect((await browser.request('GET', '/api/auth/me')).status).to.equal(200);
  });

  it('treats another scheme or a missing space as no credentials', async () => {
    for (const header of ['Bearer abc', `Token${'a'.repeat(64)}`, 'Basic YWRtaW46YWRtaW4=']) {
      const res = await get('/api/issue/issue', { Authorization: header });
      expect(res.status).to.equal(401);
      expect(res.body.detail).to.equal('Authentication credentials were not provided.');
    }
  });

  it('distinguishes an empty token header and one with spaces', async () => {
    expect((await get('/api/issue/issue', { Authorization: 'Token' })).body.detail).to.equal('Invalid token header. No credentials provided.');
    expect((await get('/api/issue/issue', { Authorization: 'Token a b' })).body.detail).to.equal(
      'Invalid token header. Token string should not contain spaces.',
    );
  });

  it('refuses an unknown token', async () => {
    const res = await get('/api/issue/issue', { Authorization: 'Token nonsense' });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal({ detail: 'Invalid token.' });
  });

  it('accepts the keyword in any case', async () => {
    const res = await get('/api/issue/issue', { Authorization: `tOkEn ${suite().admin.token!}` });
    expect(res.status).to.equal(200);
  });

  it('refuses an expired token', async () => {
    const user = await makeUser({ superuser: true });
    await suite().service.db('api_tokens').where({ user_id: user.id }).update({ expires: new Date(Date.now() - 1000) });
    const res = await user.client.get('/api/issue/issue');
    expect(res.status).to.equal(401);
    expect(res.body.detail).to.equal('Invalid token.');
  });

  it("stops a deactivated user's token", async () => {
    const user = await makeUser({ superuser: true });
    expect((await user.client.get('/api/issue/issue')).status).to.equal(200);
    expect((await suite().admin.patch(`/api/user/${user.id}`, { is_active: false })).status).to.equal(200);
    const res = await user.client.get('/api/issue/issue');
    expect(res.status).to.equal(401);
    expect(res.body.detail).to.equal('Invalid token.');
  });

  it('stores only a SHA-256 hash of a token, and updates last_used at most once a minute', async () => {
    const user = await makeUser();
    const row = await suite().service.db('api_tokens').where({ user_id: user.id }).first();
    expect(row.key_hash).to.match(/^[0-9a-f]{64}$/);
    expect(row.key_hash).to.not.equal(user.token);
    expect(JSON.stringify(row)).to.not.include(user.token);
    expect(row.last_used).to.equal(null);
    await user.client.get('/api/issue/issue');
    const first = (await suite().service.db('api_tokens').where({ user_id: user.id }).first()).last_used;
    expect(first).to.be.instanceOf(Date);
    await user.client.get('/api/issue/issue');
    const second = (await suite().service.db('api_tokens').where({ user_id: user.id }).first()).last_used;
    expect(second.getTime()).to.equal(first.getTime());
  });
});

describe('model permissions', () => {
  it('answers 403 to an authenticated user without the permission, for each action', async () => {
    const user = await makeUser();
    const tracker = (await suite().admin.post('/api/issue/tracker', { title: 'Perm tracker' })).body;
    const denied = { detail: 'You do not have permission to perform this action.' };
    for (const [method, path] of [
      ['GET', '/api/issue/tracker'],
      ['GET', `/api/issue/tracker/${tracker.id}`],
      ['POST', '/api/issue/tracker'],
      ['PUT', `/api/issue/tracker/${tracker.id}`],
      ['PATCH', `/api/issue/tracker/${tracker.id}`],
      ['DELETE', `/api/issue/tracker/${tracker.id}`],
    ] as const) {
      const res = await user.client.request(method, path, { body: method === 'POST' || method.startsWith('P') ? { title: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.equal(denied);
    }
  });

  it('grants exactly the actions of the permissions held through groups', async () => {
    const user = await makeUser({ permissions: ['organisation.view_mitarbeitende', 'organisation.add_mitarbeitende'] });
    expect((await user.client.get('/api/organisation/mitarbeitende')).status).to.equal(200);
    const created = await user.client.post('/api/organisation/mitarbeitende', { vorname: 'Anna', nachname: 'Muster' });
    expect(created.status).to.equal(201);
    expect(created.body.created_by).to.equal(user.id);
    expect((await user.client.patch(`/api/organisation/mitarbeitende/${created.body.id}`, { vorname: 'B' })).status).to.equal(403);
    expect((await user.client.delete(`/api/organisation/mitarbeitende/${created.body.id}`)).status).to.equal(403);
    expect((await user.client.get('/api/issue/issue')).status).to.equal(403);
  });

  it('checks the permission before reading the body', async () => {
    const user = await makeUser();
    const res = await user.client.request('POST', '/api/issue/tracker', { raw: '{broken', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).to.equal(403);
  });

  it('lets a superuser do everything without groups', async () => {
    const user = await makeUser({ superuser: true });
    const res = await user.client.post('/api/issue/tracker', { title: 'By superuser' });
    expect(res.status).to.equal(201);
    expect((await user.client.delete(`/api/issue/tracker/${res.body.id}`)).status).to.equal(204);
  });
});
