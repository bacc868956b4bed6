/**
 * Browser protections on every answer: helmet's defaults (a Content-Security-Policy with
 * `script-src 'self'`, so every page's script is a file of this service; nosniff; frame and
 * referrer policies; …), and cross-origin access only for the origins CORS_ORIGINS lists.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@koa/cors';
import helmet, { type HelmetOptions } from 'helmet';
import type { Middleware } from 'koa';

/**
 * What helmet does to every answer, asked of it once: with no function among its options (no
 * per-request nonce) its headers are the same for every request, and running its dozen middleware
 * per request cost about as much as the request's log line (15 µs; bench --framework-floor).
 */
function headersOf(options: HelmetOptions): [set: [string, string][], removed: string[]] {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let ended = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err as Error;
    ended = true;
  });
  // helmet's middleware is synchronous; one that was not could not be asked once
  if (!ended) throw new Error('helmet did not finish synchronously');
  return [set, removed];
}

/**
 * `https`: the service is reached over HTTPS (behind the proxy of SECURE_COOKIES). Only then may
 * the policy ask browsers to upgrade the page's own http: URLs, which a plain-HTTP service cannot answer.
 */
export function securityHeaders(https: boolean): Middleware {
  const [set, removed] = headersOf({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } } });
  return (ctx, next) => {
    const { res } = ctx;
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    return next();
  };
}

/** The headers a cross-origin script may read: paging (list-headers.ts) and the request id. */
const EXPOSED = ['Link', 'X-Total-Count', 'X-List-Truncated', 'X-Request-Id', 'Retry-After'];

/** CORS for exactly `origins` (token authentication; cookies stay same-site); undefined when none are listed. */
export function crossOrigin(origins: readonly string[]): Middleware | undefined {
  if (!origins.length) return undefined;
  const allowed = new Set(origins);
  return cors({
    // an origin not listed gets no CORS headers at all, so the browser refuses it
    origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    exposeHeaders: EXPOSED,
    maxAge: 600,
  });
}
