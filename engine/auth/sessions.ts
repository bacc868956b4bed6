/**
 * Session authentication (CONTRACT 6): koa-session with its data in PostgreSQL, so any instance
 * serves any session; cookie `sessionid` (HttpOnly, SameSite=Lax, Secure when configured). Writes
 * under a session need `X-CSRFToken` equal to the `csrftoken` cookie and to the session's token.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import createSession from 'koa-session';
import { permissionDenied } from '../errors.js';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
const MAX_AGE_MS = 14 * 24 * 3600 * 1000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionData {
  userId?: number;
  csrf?: string;
}

/** The session id each request issued (at sign-in): the only one its save may create. */
const issued = new WeakMap<Context, string>();

function store(db: Knex) {
  return {
    async get(id: string): Promise<SessionData | undefined> {
      const row = (await db('sessions').where('id', id).where('expires', '>', db.fn.now()).first('data')) as { data: SessionData } | undefined;
      return row?.data;
    },
    async set(id: string, data: SessionData, _maxAge: number, { ctx }: { ctx?: Context }): Promise<void> {
      const values = { data: JSON.stringify(data), expires: new Date(Date.now() + MAX_AGE_MS) };
      // any other save (a renewal) only updates: a session ended while the request ran (sign-out,
      // deactivation, a password change) stays ended
      if (ctx && issued.get(ctx) === id) await db('sessions').insert({ id, ...values }).onConflict('id').merge();
      else await db('sessions').where('id', id).update(values);
    },
    async destroy(id: string): Promise<void> {
      await db('sessions').where('id', id).delete();
    },
  };
}

export function sessionMiddleware(app: Koa, db: Knex, secure: boolean): Koa.Middleware {
  return createSession(
    {
      key: SESSION_COOKIE,
      maxAge: MAX_AGE_MS,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      // the cookie carries only a random id; the data stays server-side
      signed: false,
      rolling: false,
      renew: true,
      store: store(db),
      genid: (ctx: Context) => {
        const id = randomBytes(32).toString('base64url');
        issued.set(ctx, id);
        return id;
      },
    },
    app,
  ) as unknown as Koa.Middleware;
}

/** Secure cookies cannot be set on a plain-HTTP request (one that went around the HTTPS proxy): say so instead of failing. */
export function requireSecureTransport(ctx: Context, secure: boolean): void {
  if (secure && !ctx.secure) throw permissionDenied('Sessions need HTTPS: this service sets its cookies Secure.');
}

/** Starts a fresh session for the user (a new id, so a planted one is never reused) with a CSRF token. */
export async function signIn(ctx: Context, userId: number, secure: boolean): Promise<void> {
  const csrf = randomBytes(32).toString('base64url');
  const session = ctx.session as unknown as SessionData & { regenerate(): Promise<void> };
  Object.assign(session, { userId, csrf } satisfies SessionData);
  await session.regenerate();
  ctx.cookies.set(CSRF_COOKIE, csrf, { httpOnly: false, sameSite: 'lax', secure, maxAge: MAX_AGE_MS, overwrite: true });
}

export function signOut(ctx: Context, secure: boolean): void {
  ctx.session = null;
  ctx.cookies.set(CSRF_COOKIE, '', { httpOnly: false, sameSite: 'lax', secure, maxAge: 0, overwrite: true });
}

/** The id of the session the request came with (the cookie carries nothing else). */
export function currentSessionId(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/** Ends every session of the user but `keep` (e.g. after a password change, the one that made it); deactivation ends them all by trigger (migration 0310). */
export async function endSessions(db: Knex, userId: number, keep: string | undefined): Promise<void> {
  await db.raw('select end_sessions(?::integer, ?::text)', [userId, keep ?? null]);
}

export function sessionUserId(ctx: Context): number | undefined {
  return (ctx.session as SessionData | null | undefined)?.userId;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Django's double-submit check, bound to the session: header = cookie = the session's token. */
export function checkCsrf(ctx: Context): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const header = ctx.get('X-CSRFToken');
  const cookie = ctx.cookies.get(CSRF_COOKIE) ?? '';
  const expected = (ctx.session as SessionData | null | undefined)?.csrf ?? '';
  if (!header || !cookie) throw permissionDenied('CSRF Failed: CSRF token missing.');
  if (!same(header, cookie) || !same(header, expected)) throw permissionDenied('CSRF Failed: CSRF token incorrect.');
}
