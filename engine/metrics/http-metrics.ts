/**
 * Counts and times each request once its answer has been sent (a streamed list ends long after the
 * middleware returns), labelled by its route pattern: the route table's (`/api/dms/document/:id`),
 * the router's for the public routes, and `unmatched` for the rest, so ids never become labels.
 * Bytes out are what the socket wrote meanwhile, headers included, whatever the body was.
 */
import type { Context, Next } from 'koa';
import type { Metrics } from './metrics.js';

const UNMATCHED = 'unmatched';

const routeOf = (ctx: Context): string => {
  const route = (ctx.state.route as string | undefined) ?? ctx._matchedRoute;
  return typeof route === 'string' ? route : UNMATCHED;
};

export function httpMetrics(metrics: Metrics) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const socket = ctx.req.socket;
    const writtenBefore = socket.bytesWritten;
    const began = performance.now();
    metrics.inFlight++;
    ctx.res.once('close', () => {
      metrics.inFlight--;
      const route = routeOf(ctx);
      const { method } = ctx;
      const status = String(ctx.status);
      metrics.duration.observe(metrics.duration.of(`${method} ${route}`, { route, method }), (performance.now() - began) / 1000);
      metrics.requests.of(`${method} ${status} ${route}`, { route, method, status }).value++;
      metrics.bytesOut.of(route, { route }).value += Math.max(0, socket.bytesWritten - writtenBefore);
    });
    await next();
  };
}
