/**
 * Browser protections on every answer: koa-helmet's defaults (a Content-Security-Policy with
 * `script-src 'self'`, so every page's script is a file of this service; nosniff; frame and
 * referrer policies; …), and cross-origin access only for the origins CORS_ORIGINS lists.
 */
import cors from '@koa/cors';
import helmet from 'koa-helmet';
import type { Middleware } from 'koa';

/**
 * `https`: the service is reached over HTTPS (behind the proxy of SECURE_COOKIES). Only then may
 * the policy ask browsers to upgrade the page's own http: URLs, which a plain-HTTP service cannot answer.
 */
export function securityHeaders(https: boolean): Middleware {
  return helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } } });
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
