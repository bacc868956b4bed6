/**
 * Authentication (CONTRACT 4, 6). Every protected route runs `authenticate` first (the route table
 * runs it for the routes it matched, so the matched route decides, not a string prefix): a token header wins;
 * otherwise the session cookie, whose writes must carry the CSRF token. The principal lands in
 * `ctx.state.user`. A path no route matched answers 404, under `/api` only after credentials, so
 * the answer does not tell an anonymous caller which paths exist.
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { notAuthenticated, notFound } from '../errors.js';
import { authenticateToken, tokenKeyOf } from '../auth/token-auth.js';
import { checkCsrf, currentSessionId, sessionUserId } from '../auth/sessions.js';
import { loadPrincipal, type Principal } from '../auth/users.js';

async function principalOf(db: Knex, ctx: Context): Promise<Principal> {
  const key = tokenKeyOf(ctx.get('Authorization') || undefined);
  if (key !== undefined) return authenticateToken(db, key);
  const userId = sessionUserId(ctx);
  // an inactive or deleted user's session simply stops authenticating
  const user = userId === undefined ? undefined : await loadPrincipal(db, (qb) => void qb.where('u.id', userId));
  if (!user) throw notAuthenticated();
  checkCsrf(ctx);
  return { ...user, sessionId: currentSessionId(ctx) };
}

export function authenticate(db: Knex) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.user = await principalOf(db, ctx);
    return next();
  };
}

export function notFoundAfterAuthentication(db: Knex) {
  return async (ctx: Context): Promise<void> => {
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (ctx.path === '/api' || ctx.path.startsWith('/api/')) ctx.state.user = await principalOf(db, ctx);
    throw notFound();
  };
}
