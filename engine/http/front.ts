/**
 * What every request passes before any route: metrics, the request log, error rendering, the
 * security headers and CORS, the encrypted values' reveal and the path conventions. One function,
 * so the bench's framework floor (bench/floor.ts) measures exactly the service's front.
 */
import type Koa from 'koa';
import type { Logger } from '../log.js';
import { httpMetrics } from '../metrics/http-metrics.js';
import type { Metrics } from '../metrics/metrics.js';
import { redirectDeprecated, stripTrailingSlash } from './paths.js';
import { renderErrors } from './render-errors.js';
import { requestLog } from './request-log.js';
import { revealEncrypted } from './reveal-encrypted.js';
import { crossOrigin, securityHeaders } from './security-headers.js';

export interface FrontSettings {
  log: Logger;
  metrics?: Metrics;
  secureCookies: boolean;
  corsOrigins: readonly string[];
  /** Deprecated paths and where they moved (the registry's). */
  redirects: readonly (readonly [string, string])[];
}

export function useFront(koa: Koa, { log, metrics, secureCookies, corsOrigins, redirects }: FrontSettings): void {
  if (metrics) koa.use(httpMetrics(metrics));
  koa.use(requestLog(log));
  koa.use(renderErrors);
  // set before the rest runs, so errors rendered above keep them
  koa.use(securityHeaders(secureCookies));
  koa.use(revealEncrypted);
  const cors = crossOrigin(corsOrigins);
  if (cors) koa.use(cors);
  koa.use(redirectDeprecated(redirects));
  koa.use(stripTrailingSlash);
}
