/**
 * The one place failures become responses: API errors render their own status and body; database
 * failures are mapped first; anything else is a bug, logged with the request id, answered 500.
 */
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.js';
import { mapDatabaseError } from '../storage/db-errors.js';

export async function renderErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (caught) {
    const err = mapDatabaseError(caught, undefined);
    if (err instanceof ApiError) {
      // a database refusal mapped to a plain answer: the driver's words go to the log only
      if (err.cause !== undefined) ctx.state.log?.warn({ err: err.cause }, 'database refused the request');
      ctx.status = err.status;
      ctx.set(err.headers);
      ctx.body = err.body();
      return;
    }
    ctx.state.log?.error({ err }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { detail: 'A server error occurred.' };
  }
}
