/** Paths, methods, bodies and their error answers (CONTRACT 4, 5; spec 4.1, 4.4). */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { DetailError } from '../engine/errors.js';
import { readJsonBody } from '../engine/http/json-body.js';
import { suite } from './support/hooks.js';
import { created } from './support/fixtures.js';

describe('HTTP conventions', () => {
  it('accepts paths with and without a trailing slash alike', async () => {
    const { admin } = suite();
    const tracker = await created(admin, '/api/issue/tracker/', { title: 'Slash' });
    const a = await admin.get(`/api/issue/tracker/${tracker.id}`);
    const b = await admin.get(`/api/issue/tracker/${tracker.id}/`);
    expect(a.status).to.equal(200);
    expect(b.body).to.deep.equal(a.body);
    expect((await admin.patch(`/api/issue/tracker/${tracker.id}/`, { title: 'Slash 2' })).body.title).to.equal('Slash 2');
    const list = await admin.get('/api/issue/tracker/?title=slash');
    expect(list.body.map((t: any) => t.id)).to.include(tracker.id);
  });

  describe('deprecated paths', () => {
    const cases = [
      ['/api/mitarbeitende', '/api/organisation/mitarbeitende'],
      ['/api/salary', '/api/organisation/salary'],
      ['/api/monthlyclosing', '/api/timetracker/monthlyclosing'],
    ] as const;
    for (const [old, successor] of cases) {
      it(`${old} answers 301 to ${successor} for every method, before authentication`, async () => {
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          const res = await suite().admin.request(method, `${old}/5?x=1&y=2`, { token: null });
          expect(res.status, method).to.equal(301);
          expect(res.headers.get('location')).to.equal(`${successor}/5?x=1&y=2`);
          expect(res.headers.get('deprecation')).to.equal('true');
          expect(res.headers.get('link')).to.equal(`<${successor}>; rel="successor-version"`);
        }
        expect((await suite().admin.get(old, { token: null })).headers.get('location')).to.equal(successor);
      });
    }
    it('does not redirect paths that merely start alike', async () => {
      expect((await suite().admin.get('/api/salaryx')).status).to.equal(404);
    });
  });

  it('answers 404 for unknown paths and malformed or missing ids', async () => {
    const { admin } = suite();
    for (const path of ['/api/nope', '/api/issue/nope', '/api/issue/issue/abc', '/api/issue/issue/0', '/api/issue/issue/99999999', '/api/issue/issue/1.5']) {
      const res = await admin.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body).to.deep.equal({ detail: 'Not found.' });
    }
  });

  it('answers 405 with Allow for methods a path does not offer', async () => {
    const { admin } = suite();
    const collection = await admin.put('/api/issue/tracker', { title: 'x' });
    expect(collection.status).to.equal(405);
    expect(collection.body).to.deep.equal({ detail: 'Method "PUT" not allowed.' });
    expect(collection.headers.get('allow')).to.equal('GET, POST');
    const item = await admin.post('/api/issue/tracker/1', {});
    expect(item.status).to.equal(405);
    expect(item.body).to.deep.equal({ detail: 'Method "POST" not allowed.' });
    expect(item.headers.get('allow')).to.equal('GET, PUT, PATCH, DELETE');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const big = JSON.stringify({ title: 'x', description: 'y'.repeat(1024 * 1024) });
    const res = await suite().admin.request('POST', '/api/issue/tracker', { raw: big, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.equal({ detail: 'Request body too large.' });
  });

  it('answers 413 for a chunked body over 1 MiB (no length declared), closes the connection and stores nothing', async () => {
    const { admin } = suite();
    const title = `Chunked ${Date.now()}`;
    const encode = (text: string) => new TextEncoder().encode(text);
    // 1.5 MiB in 64 kB pieces, the length known only once it ends
    const chunks = [encode(`{"title": "${title}", "description": "`), ...Array.from({ length: 24 }, () => encode(' '.repeat(64 * 1024))), encode('"}')];
    const body = new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const res = await fetch(`${admin.baseUrl}/api/issue/tracker`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { Authorization: `Token ${admin.token}`, 'Content-Type': 'application/json' },
    } as RequestInit);
    expect([res.status, await res.json()]).to.deep.equal([413, { detail: 'Request body too large.' }]);
    expect(res.headers.get('connection')).to.equal('close');
    expect((await admin.get(`/api/issue/tracker?title=${encodeURIComponent(title)}`)).body).to.deep.equal([]);
  });

  it('ends the reading of a body whose client went away mid-way: 400, no wait for the rest', async () => {
    let outcome!: (value: unknown) => void;
    const read = new Promise<unknown>((resolve) => (outcome = resolve));
    const app = new Koa();
    // the server's own word on the request it could not finish parsing is no concern of this test
    app.silent = true;
    app.use(async (ctx) => {
      await readJsonBody(ctx).then(outcome, outcome);
      ctx.body = {};
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title": "');
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const err = await read;
      expect(err).to.be.instanceOf(DetailError);
      expect([(err as DetailError).status, (err as DetailError).detail]).to.deep.equal([400, 'The request body was cut short.']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await suite().admin.request('POST', '/api/issue/tracker', {
      raw: 'title=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body).to.deep.equal({ detail: 'Unsupported media type "application/x-www-form-urlencoded" in request.' });
    const tracker = await created(suite().admin, '/api/issue/tracker', { title: 'Media type' });
    const patch = await suite().admin.request('PATCH', `/api/issue/tracker/${tracker.id}`, { raw: 'x', headers: { 'Content-Type': 'text/plain' } });
    expect(patch.status).to.equal(415);
    expect(patch.body).to.deep.equal({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('answers 400 for malformed JSON and for JSON that is not an object', async () => {
    const { admin } = suite();
    const broken = await admin.request('POST', '/api/issue/tracker', { raw: '{"title": ', headers: { 'Content-Type': 'application/json' } });
    expect(broken.status).to.equal(400);
    expect(broken.body.detail).to.match(/^JSON parse error - ./);
    for (const [body, type] of [[[1, 2], 'list'], ['"text"', 'str'], ['5', 'int'], ['true', 'bool'], ['null', 'NoneType']] as const) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const res = await admin.request('POST', '/api/issue/tracker', { raw, headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ detail: `Invalid data. Expected a dictionary, but got ${type}.` });
    }
  });

  it('treats an empty body as an empty object', async () => {
    const res = await suite().admin.request('POST', '/api/issue/tracker', { headers: { 'Content-Type': 'application/json' } });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ title: ['This field is required.'] });
  });
});
