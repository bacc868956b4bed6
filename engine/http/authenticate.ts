/**
 * Authentication (CONTRACT 4, 6). Every protected route runs `authenticate` first (the route table
 * runs it for the routes it matched, so the matched route decides, not a string prefix): a token
 * header wins, and such a request never reads the session store; otherwise the session cookie,
 * whose writes must carry the CSRF token. The principal lands in `ctx.state.user`. A path no route
 * matched answers 404, under `/api` only after credentials, so the answer does not tell an
 * anonymous caller which paths exist.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Knex } from 'knex';
import { notAuthenticated, notFound } from '../errors.js';
import { tokenKeyOf, type TokenAuthenticator } from '../auth/token-auth.js';
import { checkCsrf, currentSessionId, sessionUserId } from '../auth/sessions.js';
import { loadPrincipal, type Principal } from '../auth/users.js';

async function sessionPrincipal(db: Knex, ctx: Context): Promise<Principal> {
  const userId = sessionUserId(ctx);
  // an inactive or deleted user's session simply stops authenticating
  const user = userId === undefined ? undefined : await loadPrincipal(db, (qb) => void qb.where('u.id', userId));
  if (!user) throw notAuthenticated();
  checkCsrf(ctx);
  return { ...user, sessionId: currentSessionId(ctx) };
}

/** The request's principal: its writes are captured with the user and the request's id. */
const inRequest = (ctx: Context, principal: Principal): Principal => ({ ...principal, requestId: ctx.state.requestId as string | undefined });

/** `session` is the session middleware: it runs around the rest of the request only when there is no token. */
export function authenticator(db: Knex, tokens: TokenAuthenticator, session: Middleware): Middleware {
  // not an async function: a warm token's principal comes at once, and the request goes on without an await
  return (ctx: Context, next: Next): Promise<unknown> => {
    const key = tokenKeyOf(ctx.get('Authorization') || undefined);
    if (key === undefined) {
      return session(ctx, async () => {
        ctx.state.user = inRequest(ctx, await sessionPrincipal(db, ctx));
        await next();
      });
    }
    const proceed = (principal: Principal) => {
      ctx.state.user = inRequest(ctx, principal);
      return next();
    };
    const principal = tokens.authenticate(key);
    return principal instanceof Promise ? principal.then(proceed) : proceed(principal);
  };
}

export function notFoundAfterAuthentication(authenticate: Middleware) {
  return async (ctx: Context): Promise<void> => {
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (ctx.path === '/api' || ctx.path.startsWith('/api/')) await authenticate(ctx, async () => undefined);
    throw notFound();
  };
}
