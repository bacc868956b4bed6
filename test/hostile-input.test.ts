/**
 * Input that must be refused with a JSON error under the offending name, never answered with SQL,
 * a driver's message or a 5xx (issue 8, items 6–11).
 */
import net from 'node:net';
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { createToken } from '../engine/auth/tokens.js';
import { created, unique } from './support/fixtures.js';

const NUL = 'Null characters are not allowed.';

/** Nothing in an answer may name SQL, tables or the driver. */
function expectNoSqlIn(text: string): void {
  expect(text).to.not.match(/select |insert |issue_issue|"t"\.|invalid byte sequence|syntax error|relation /i);
}

describe('hostile input', () => {
  let tracker: { id: number };
  before(async () => {
    tracker = await created(suite().admin, '/api/issue/tracker', { title: unique('hostile') });
  });

  describe('NUL characters (8.6)', () => {
    it('in a query parameter: 400 under that parameter', async () => {
      for (const param of ['search', 'title', 'ordering', 'remote_key', 'limit']) {
        const res = await suite().admin.get(`/api/issue/tracker?${param}=a%00b`);
        expect(res.status, param).to.equal(400);
        expect(res.body, param).to.deep.equal({ [param]: [NUL] });
        expectNoSqlIn(res.text);
      }
      const issues = await suite().admin.get('/api/issue/issue?search=%00');
      expect(issues.body).to.deep.equal({ search: [NUL] });
      // an unknown parameter is ignored, NUL or not
      expect((await suite().admin.get('/api/issue/tracker?whatever=%00')).status).to.equal(200);
    });

    it('in a body string and at sign-in: 400 under the field, nothing stored', async () => {
      const { admin } = suite();
      const before = await suite().service.db('issue_issue').count({ n: '*' });
      const res = await admin.post('/api/issue/issue', { tracker_id: tracker.id, title: 'a\u0000b', description: 'ok' });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ title: [NUL] });
      expect(await suite().service.db('issue_issue').count({ n: '*' })).to.deep.equal(before);
      const login = await admin.post('/api/auth/login', { username: 'ad\u0000min', password: 'x' }, { token: null });
      expect(login.status).to.equal(400);
      expect(login.body).to.deep.equal({ username: [NUL] });
      expectNoSqlIn(login.text);
    });
  });

  describe('an unbounded search (issue 13.1)', () => {
    it('more than 10 words or a word over 100 characters: 400 under search', async () => {
      const { admin } = suite();
      const words = (n: number) => encodeURIComponent(Array.from({ length: n }, (_, i) => `w${i}`).join(' '));
      expect((await admin.get(`/api/issue/issue?search=${words(10)}`)).status).to.equal(200);
      const many = await admin.get(`/api/issue/issue?search=${words(11)}`);
      expect(many.status).to.equal(400);
      expect(many.body).to.deep.equal({ search: ['Ensure this value has at most 10 words.'] });
      expect((await admin.get(`/api/issue/issue?search=${'é'.repeat(100)}`)).status).to.equal(200);
      const long = await admin.get(`/api/issue/tracker?search=a%20${'b'.repeat(101)}`);
      expect(long.status).to.equal(400);
      expect(long.body).to.deep.equal({ search: ['Ensure each word has no more than 100 characters.'] });
    });
  });

  describe('keys named like object prototype members (8.7)', () => {
    for (const key of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__']) {
      it(`"${key}" is an unknown field on writes and at sign-in`, async () => {
        const { admin } = suite();
        const raw = `{"title": "x", "${key}": 1}`;
        const create = await admin.request('POST', '/api/issue/tracker', { raw, headers: { 'Content-Type': 'application/json' } });
        expect(create.status).to.equal(400);
        expect(create.body).to.deep.equal({ [key]: ['Unknown field.'] });
        const patch = await admin.request('PATCH', `/api/issue/tracker/${tracker.id}`, { raw, headers: { 'Content-Type': 'application/json' } });
        expect(patch.body).to.deep.equal({ [key]: ['Unknown field.'] });
        const login = await admin.request('POST', '/api/auth/login', {
          token: null,
          raw: `{"username": "a", "password": "b", "${key}": 1}`,
          headers: { 'Content-Type': 'application/json' },
        });
        expect(login.status).to.equal(400);
        expect(login.body).to.deep.equal({ [key]: ['Unknown field.'] });
      });
    }

    it('as query parameters they are ignored like any unknown one', async () => {
      expect((await suite().admin.get('/api/issue/tracker?constructor=1&__proto__=2&toString=3')).status).to.equal(200);
    });
  });

  it('refuses JSON nested deeper than the call stack goes in a field, as a wrong type, not a 500', async () => {
    // found by the generated hostile input: the NUL scan of bodies recursed into the nesting
    for (const deep of [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`]) {
      const raw = `{"title": ${deep}}`;
      const res = await suite().admin.request('POST', '/api/issue/tracker', { raw, headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ title: ['Not a valid string.'] });
    }
  });

  it('reads a token id in the path as every route reads ids: other spellings of it name no token', async () => {
    const { admin, adminId, service } = suite();
    const { id, key } = await createToken(service.db, adminId, unique('spelt'));
    for (const spelling of [`${id}e0`, `0x${id.toString(16)}`, `%20${id}`, `${id}.0`, `%2B${id}`]) {
      const res = await admin.delete(`/api/auth/tokens/${spelling}`);
      expect(res.status, spelling).to.equal(404);
      expect(res.body, spelling).to.deep.equal({ detail: 'Not found.' });
    }
    expect((await admin.get('/api/auth/me', { token: key })).status).to.equal(200);
    expect((await admin.delete(`/api/auth/tokens/${id}`)).status).to.equal(204);
  });

  it('caps id lists at 1000 elements (8.8)', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => i + 1);
    const res = await suite().admin.post('/api/issue/tracker', { title: unique('big'), admin_ids: ids });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ admin_ids: ['Ensure this field has no more than 1000 elements.'] });
    const group = await suite().admin.post('/api/customgroup', { name: unique('g'), permissions: Array(1001).fill('issues.view_issue') });
    expect(group.body).to.deep.equal({ permissions: ['Ensure this field has no more than 1000 elements.'] });
    expect((await suite().admin.get('/readyz')).status).to.equal(200);
  });

  describe('encodings (8.9)', () => {
    it('refuses bytes that are not UTF-8 with a JSON parse error and stores nothing', async () => {
      const title = unique('latin');
      const raw = Buffer.concat([Buffer.from(`{"title": "${title} caf`), Buffer.from([0xe9]), Buffer.from('"}')]);
      const res = await suite().admin.request('POST', '/api/issue/tracker', { raw, headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^JSON parse error - /);
      expect(await suite().service.db('issue_tracker').where('title', 'like', `${title}%`).first()).to.equal(undefined);
    });

    it('refuses a lone UTF-16 surrogate escaped in a JSON string, in values and keys, as a parse error (issue 22.10)', async () => {
      const { admin, service } = suite();
      const send = (path: string, raw: string, method = 'POST') => admin.request(method, path, { raw, headers: { 'Content-Type': 'application/json' } });
      const title = unique('surrogate');
      const bodies = [
        `{"title": "${title} \\ud800"}`,
        `{"title": "${title} \\uDFFF x"}`,
        `{"title": "${title} \\ude00\\ud83d"}`,
        `{"title": "${title}", "description": "\\ud83d"}`,
        `{"title": "${title}", "\\udc00": 1}`,
        `{"title": "${title}", "admin_ids": [1, {"a": ["\\ud800"]}]}`,
        `{"title": "${title}", "admin_ids": [{"\\udbff": 1}]}`,
      ];
      for (const raw of bodies) {
        const res = await send('/api/issue/tracker', raw);
        expect(res.status, raw).to.equal(400);
        expect(res.body.detail, raw).to.match(/^JSON parse error - Unpaired UTF-16 surrogate \\u[0-9a-f]{4} in a string\.$/);
      }
      expect(await service.db('issue_tracker').where('title', 'like', `${title}%`).first()).to.equal(undefined);
      // on an update, at sign-in and on an engine table alike
      expect((await send(`/api/issue/tracker/${tracker.id}`, '{"title": "x\\ud800"}', 'PATCH')).body).to.deep.equal({ detail: 'JSON parse error - Unpaired UTF-16 surrogate \\ud800 in a string.' });
      expect((await send('/api/auth/login', '{"username": "\\ud800", "password": "x"}')).status).to.equal(400);
      expect((await send('/api/webhook/subscription', '{"url": "https://example.com/\\udbff", "events": ["issue.issue.created"], "secret": "0123456789abcdef"}')).status).to.equal(400);
      // a pair is one character, escaped or not; an escaped backslash before "ud800" is no escape
      const pair = await send('/api/issue/tracker', `{"title": "${title} \\ud83d\\ude00 😀", "description": "\\\\ud800"}`);
      expect(pair.status, pair.text).to.equal(201);
      expect(pair.body).to.include({ title: `${title} 😀 😀`, description: '\\ud800' });
    });

    it('refuses a charset other than UTF-8 with 415, and accepts UTF-8 spelt either way', async () => {
      const raw = JSON.stringify({ title: unique('cs') });
      const latin = await suite().admin.request('POST', '/api/issue/tracker', { raw, headers: { 'Content-Type': 'application/json; charset=iso-8859-1' } });
      expect(latin.status).to.equal(415);
      expect(latin.body).to.deep.equal({ detail: 'Unsupported media type "application/json; charset=iso-8859-1" in request.' });
      for (const charset of ['utf-8', 'UTF-8', 'utf8']) {
        const ok = await suite().admin.request('POST', '/api/issue/tracker', { raw: JSON.stringify({ title: unique('ü') }), headers: { 'Content-Type': `application/json; charset=${charset}` } });
        expect(ok.status, charset).to.equal(201);
      }
    });
  });

  it('bounds text fields and documents the bound (8.10)', async () => {
    const res = await suite().admin.patch(`/api/issue/tracker/${tracker.id}`, { description: 'x'.repeat(1_000_000) });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ description: ['Ensure this field has no more than 20000 characters.'] });
    const long = await suite().admin.patch(`/api/issue/tracker/${tracker.id}`, { description: 'x'.repeat(20_001) });
    expect(long.status).to.equal(400);
    expect(long.body).to.deep.equal({ description: ['Ensure this field has no more than 20000 characters.'] });
    expect((await suite().admin.patch(`/api/issue/tracker/${tracker.id}`, { description: 'x'.repeat(20_000) })).status).to.equal(200);
    const schema = await suite().admin.get('/api/schema/?format=json', { token: null });
    const body = schema.body.components.schemas;
    const texts = Object.values(body as Record<string, { properties?: Record<string, { maxLength?: number; type?: unknown }> }>)
      .flatMap((s) => Object.entries(s.properties ?? {}))
      .filter(([name, p]) => name === 'description' && (p.type === 'string' || (Array.isArray(p.type) && p.type.includes('string'))));
    expect(texts.length).to.be.above(10);
    for (const [, p] of texts) expect(p.maxLength).to.be.a('number');
  });

  describe('oversized request lines and headers (8.11)', () => {
    /** Raw HTTP, since fetch refuses to send what the server must refuse. */
    function rawRequest(head: string): Promise<string> {
      const { port } = new URL(suite().service.url);
      return new Promise((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    }
    const bodyOf = (reply: string) => JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as unknown;

    it('a URL over the limit: 414 with a JSON body', async () => {
      const reply = await rawRequest(`GET /api/issue/issue?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(reply).to.match(/^HTTP\/1\.1 414 /);
      expect(reply).to.match(/content-type: application\/json/i);
      expect(bodyOf(reply)).to.deep.equal({ detail: 'Request URI too long.' });
    });

    it('headers over the limit: 431 with a JSON body', async () => {
      const reply = await rawRequest(`GET /api/issue/issue HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
      expect(reply).to.match(/^HTTP\/1\.1 431 /);
      expect(bodyOf(reply)).to.deep.equal({ detail: 'Request header fields too large.' });
    });

    it('a malformed request: 400 with a JSON body', async () => {
      const reply = await rawRequest('GET /api/issue/issue HTTP/1.1\r\nHost x\r\n\r\n');
      expect(reply).to.match(/^HTTP\/1\.1 400 /);
      expect(bodyOf(reply)).to.deep.equal({ detail: 'Malformed request.' });
    });
  });
});
