/**
 * Security headers on every answer and CORS only for listed origins (issue 13.7). The pages work
 * under the policy: test/openapi-browser.test.ts and test/sign-in-page.test.ts drive them in Chromium.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import helmet from 'helmet';
import type { Context } from 'koa';
import { securityHeaders } from '../engine/http/security-headers.js';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { readConfig } from '../engine/config.js';
import { Client } from './support/client.js';
import { suite } from './support/hooks.js';

const LISTED = 'https://app.example.com';

/** What a middleware does to a response: each header set or removed, in order. */
function recorder() {
  const done: string[] = [];
  const res = {
    setHeader: (name: string, value: unknown) => void done.push(`set ${name}: ${String(value)}`),
    removeHeader: (name: string) => void done.push(`remove ${name}`),
  };
  return { done, res };
}

describe('security headers and CORS', () => {
  for (const https of [false, true]) {
    it(`sets on every answer what helmet sets per request (asked of it once; SECURE_COOKIES ${https})`, async () => {
      const theirs = recorder();
      helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } } })({} as never, theirs.res as never, () => undefined);
      const middleware = securityHeaders(https);
      for (let i = 0; i < 2; i++) {
        const ours = recorder();
        let reached = false;
        await middleware({ res: ours.res } as unknown as Context, async () => void (reached = true));
        expect(reached).to.equal(true);
        expect([...ours.done].sort()).to.deep.equal([...theirs.done].sort());
      }
      expect(theirs.done.some((d) => d.includes('upgrade-insecure-requests'))).to.equal(https);
    });
  }

  it("sends helmet's headers on every answer: pages, JSON, errors, redirects", async () => {
    const client = suite().admin.as(null);
    const answers = await Promise.all(
      ['/app/', '/api/schema/swagger-ui/', '/healthz', '/api/issue/tracker', '/api/nowhere', '/api/mitarbeitende', '/nowhere'].map(async (p) => [p, await client.get(p)] as const),
    );
    expect(answers.map(([p, r]) => [p, r.status])).to.deep.equal([
      ['/app/', 200],
      ['/api/schema/swagger-ui/', 200],
      ['/healthz', 200],
      ['/api/issue/tracker', 401],
      ['/api/nowhere', 401],
      ['/api/mitarbeitende', 301],
      ['/nowhere', 404],
    ]);
    for (const [p, res] of answers) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, p).to.include("default-src 'self'").and.include("script-src 'self'").and.include("object-src 'none'").and.include("frame-ancestors 'self'");
      // the service speaks plain HTTP unless it is behind an HTTPS proxy (SECURE_COOKIES)
      expect(csp, p).to.not.include('upgrade-insecure-requests');
      expect(res.headers.get('x-content-type-options'), p).to.equal('nosniff');
      expect(res.headers.get('x-frame-options'), p).to.equal('SAMEORIGIN');
      expect(res.headers.get('referrer-policy'), p).to.equal('no-referrer');
      expect(res.headers.get('access-control-allow-origin'), p).to.equal(null);
    }
  });

  it('answers no cross-origin request without CORS_ORIGINS', async () => {
    const { admin } = suite();
    const simple = await admin.get('/api/issue/tracker', { headers: { Origin: LISTED } });
    expect(simple.status).to.equal(200);
    expect(simple.headers.get('access-control-allow-origin')).to.equal(null);
    const preflight = await admin.request('OPTIONS', '/api/issue/tracker', { token: null, headers: { Origin: LISTED, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
  });

  describe('with CORS_ORIGINS', () => {
    let server: http.Server;
    let client: Client;
    before(async () => {
      const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log: createLogger('silent'), corsOrigins: [LISTED, 'http://localhost:3000'] });
      server = http.createServer(app.koa.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, suite().admin.token);
    });
    after(async () => new Promise<void>((r) => server.close(() => r())));

    it('allows a listed origin, exposing the paging headers, and answers its preflight', async () => {
      const res = await client.get('/api/issue/tracker?limit=1', { headers: { Origin: LISTED } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(LISTED);
      expect(res.headers.get('vary')).to.match(/origin/i);
      expect(res.headers.get('access-control-expose-headers')).to.include('Link').and.include('X-Total-Count');
      const preflight = await client.request('OPTIONS', '/api/issue/tracker', {
        token: null,
        headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('http://localhost:3000');
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
      expect(preflight.headers.get('access-control-allow-headers')).to.equal('authorization,content-type');
    });

    it('gives an origin not listed no CORS headers', async () => {
      const res = await client.get('/api/issue/tracker', { headers: { Origin: 'https://evil.example' } });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      const preflight = await client.request('OPTIONS', '/api/issue/tracker', { token: null, headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'DELETE' } });
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  it('reads CORS_ORIGINS as a comma-separated list of origins', () => {
    const env = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
    expect(readConfig(env).corsOrigins).to.deep.equal([]);
    expect(readConfig({ ...env, CORS_ORIGINS: `${LISTED}, http://localhost:3000` }).corsOrigins).to.deep.equal([LISTED, 'http://localhost:3000']);
    expect(() => readConfig({ ...env, CORS_ORIGINS: 'app.example.com' })).to.throw(/Invalid setting CORS_ORIGINS="app.example.com"/);
  });
});
