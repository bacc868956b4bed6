/**
 * Authentication before routing (CONTRACT 4): every `/api` request needs credentials except the
 * public paths (sign-in, schema, docs). A token header wins; otherwise the session cookie, whose
 * writes must carry the CSRF token. The principal lands in `ctx.state.user`.
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { notAuthenticated } from '../errors.js';
import { authenticateToken, tokenKeyOf } from '../auth/token-auth.js';
import { checkCsrf, sessionUserId } from '../auth/sessions.js';
import { loadPrincipal } from '../auth/users.js';

export interface PublicPath {
  method?: string;
  path: string | RegExp;
}

export function authenticate(db: Knex, publicPaths: readonly PublicPath[]) {
  const isPublic = (ctx: Context) =>
    publicPaths.some((p) => (!p.method || p.method === ctx.method) && (typeof p.path === 'string' ? p.path === ctx.path : p.path.test(ctx.path)));
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!ctx.path.startsWith('/api/') && ctx.path !== '/api') return next();
    if (isPublic(ctx)) return next();
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
