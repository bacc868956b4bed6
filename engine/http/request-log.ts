/** A request id for every request (accepted from `X-Request-Id` or generated, echoed) and one log line per request. */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../log.js';
import { annotateRequest } from '../tracing/hooks.js';

const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

export function requestLog(log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const given = ctx.get('X-Request-Id');
    const id = ACCEPTABLE_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', id);
    ctx.state.requestId = id;
    ctx.state.log = log.child({ reqId: id });
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      annotateRequest({ requestId: id, userId: ctx.state.user?.id });
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, user: ctx.state.user?.id },
        'request',
      );
    }
  };
}
