/**
 * Authentication before routing (CONTRACT 4): every `/api` request that reaches it needs
 * credentials (the public ones, sign-in, schema and docs, are answered before it). A token header
 * wins; otherwise the session cookie, whose writes must carry the CSRF token. The principal lands
 * in `ctx.state.user`.
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { notAuthenticated } from '../errors.js';
import { authenticateToken, tokenKeyOf } from '../auth/token-auth.js';
import { checkCsrf, sessionUserId } from '../auth/sessions.js';
import { loadPrincipal } from '../auth/users.js';

export function authenticate(db: Knex) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!ctx.path.startsWith('/api/') && ctx.path !== '/api') return next();
    const key = tokenKeyOf(ctx.get('Authorization') || undefined);
    if (key !== undefined) {
      ctx.state.user = await authenticateToken(db, key);
    } else {
      const userId = sessionUserId(ctx);
      // an inactive or deleted user's session simply stops authenticating
      const user = userId === undefined ? undefined : await loadPrincipal(db, (qb) => void qb.where('u.id', userId));
      if (user) {
        checkCsrf(ctx);
        ctx.state.user = user;
      }
    }
    if (!ctx.state.user) throw notAuthenticated();
    return next();
  };
}
