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
    const timer = metrics.duration.startTimer();
    metrics.inFlight.inc();
    ctx.res.once('close', () => {
      metrics.inFlight.dec();
      const route = routeOf(ctx);
      timer({ route, method: ctx.method });
      metrics.requests.inc({ route, method: ctx.method, status: String(ctx.status) });
      metrics.bytesOut.inc({ route }, Math.max(0, socket.bytesWritten - writtenBefore));
    });
    await next();
  };
}
