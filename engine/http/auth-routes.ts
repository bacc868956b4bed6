/**
 * Sign-in and credentials (CONTRACT 6): `POST /api/auth/login` (public, throttled), `logout`,
 * `me`, and the caller's own API tokens (`/api/auth/tokens`), whose value is shown once.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Knex } from 'knex';
import type { Ajv } from 'ajv';
import { recordSecurityEvent, type SecurityEvent } from '../audit/security-events.js';
import { verifyPassword } from '../auth/passwords.js';
import { requireSecureTransport, signIn, signOut } from '../auth/sessions.js';
import { beginAttempt, succeeded } from '../auth/throttle.js';
import { createToken } from '../auth/tokens.js';
import { loadPrincipal, type Principal } from '../auth/users.js';
import { expectObject } from '../crud/body.js';
import { compileBodyValidator } from '../crud/validator.js';
import { fetchRecord } from '../crud/store.js';
import { notFound, throttled, ValidationError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import { isoTimestamp } from '../fields/values.js';
import { readJsonBody } from './json-body.js';
import { idOf, methods } from './resource-routes.js';
import type { RouteTable } from './route-table.js';

export interface AuthDeps {
  db: Knex;
  registry: Registry;
  ajv: Ajv;
  secureCookies: boolean;
  /** The session middleware, which sign-in runs (the protected routes get it from authentication). */
  session: Middleware;
}

export const LOGIN_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 150, description: 'Sign-in name.' },
    password: { type: 'string', minLength: 1, maxLength: 128, writeOnly: true, description: 'Password.' },
  },
  required: ['username', 'password'],
  additionalProperties: false,
};
export const TOKEN_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'What the token is for, e.g. "HR integration".' },
    expires: { type: ['string', 'null'], format: 'date-time', description: 'When the token stops working; null: never.' },
  },
  required: ['name'],
  additionalProperties: false,
};

function validated<T>(validate: ReturnType<typeof compileBodyValidator>, body: unknown): T {
  const errors = validate(expectObject(body));
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return body as T;
}

export function mountAuthRoutes(publicRouter: Router, routes: RouteTable, deps: AuthDeps): void {
  const { db, registry, secureCookies } = deps;
  const userResource = registry.get('user');
  const validateLogin = compileBodyValidator(deps.ajv, LOGIN_SCHEMA);
  const validateToken = compileBodyValidator(deps.ajv, TOKEN_SCHEMA);

  /** The user as `/api/user` serves it, plus the names of the permissions it holds. */
  const me = async (user: Pick<Principal, 'id' | 'isSuperuser' | 'permissions'>) => ({
    ...(await fetchRecord(db, userResource, user.id)),
    permissions: [...(user.isSuperuser ? registry.permissionNames : user.permissions)].sort(),
  });

  /** Records a security event of this request. */
  const record = (ctx: Context, event: Omit<SecurityEvent, 'requestId'>) => recordSecurityEvent(db, { ...event, requestId: ctx.state.requestId as string | undefined });

  const login = methods({
    POST: async (ctx: Context) => {
      requireSecureTransport(ctx, secureCookies);
      const { username, password } = validated<{ username: string; password: string }>(validateLogin, await readJsonBody(ctx));
      const attempt = await beginAttempt(db, username, ctx.ip);
      if (attempt.retryAfter > 0) throw throttled(attempt.retryAfter);
      const row = (await db('users').where({ username }).first('id', 'password', 'is_active')) as
        | { id: number; password: string | null; is_active: boolean }
        | undefined;
      // the same answer, after the same work, for an unknown user, a wrong password and an inactive user
      const valid = await verifyPassword(password, row?.password);
      if (!row || !valid || !row.is_active) {
        await record(ctx, { action: 'sign_in_failed', by: null, user: row?.id ?? null, details: { address: ctx.ip } });
        throw new ValidationError({ non_field_errors: ['Unable to log in with provided credentials.'] });
      }
      await succeeded(db, attempt, row.id);
      await db('users').where({ id: row.id }).update({ last_login: db.fn.now() });
      await db('sessions').where('expires', '<', db.fn.now()).delete();
      await signIn(ctx, row.id, secureCookies);
      await record(ctx, { action: 'sign_in', by: row.id, user: row.id, details: { address: ctx.ip } });
      ctx.body = await me((await loadPrincipal(db, (qb) => void qb.where('u.id', row.id)))!);
    },
  });
  publicRouter.all('/api/auth/login', deps.session, (ctx) => login(ctx, undefined));

  routes.add(
    '/api/auth/logout',
    methods({
      POST: async (ctx, user) => {
        requireSecureTransport(ctx, secureCookies);
        signOut(ctx, secureCookies);
        await record(ctx, { action: 'sign_out', by: user.id, user: user.id, details: { address: ctx.ip } });
        ctx.status = 204;
      },
    }),
  );

  routes.add(
    '/api/auth/me',
    methods({
      GET: async (ctx, user) => {
        ctx.body = await me(user);
      },
    }),
  );

  const tokenColumns = [
    'id',
    'name',
    db.raw(`${isoTimestamp('created')} as created`),
    db.raw(`${isoTimestamp('last_used')} as last_used`),
    db.raw(`${isoTimestamp('expires')} as expires`),
  ];

  routes.add(
    '/api/auth/tokens',
    methods({
      GET: async (ctx, user) => {
        ctx.body = await db('api_tokens').where({ user_id: user.id }).select(tokenColumns).orderBy('id');
      },
      POST: async (ctx, user) => {
        const { name, expires = null } = validated<{ name: string; expires?: string | null }>(validateToken, await readJsonBody(ctx));
        if (expires !== null && Date.parse(expires) <= Date.now()) throw ValidationError.field('expires', 'Must be in the future.');
        const { id, key } = await createToken(db, user.id, name, expires);
        await record(ctx, { action: 'token_created', by: user.id, user: user.id, details: { token: id, name } });
        ctx.status = 201;
        ctx.body = { ...(await db('api_tokens').where({ id }).first(tokenColumns)), token: key };
      },
    }),
  );

  routes.add(
    '/api/auth/tokens/:id',
    methods({
      DELETE: async (ctx, user, raw) => {
        // `returning` rather than the affected-row count, which PGlite does not report
        const deleted = await db('api_tokens').where({ id: idOf(raw), user_id: user.id }).delete().returning('id');
        if (deleted.length === 0) throw notFound();
        await record(ctx, { action: 'token_revoked', by: user.id, user: user.id, details: { token: (deleted[0] as { id: number }).id } });
        ctx.status = 204;
      },
    }),
  );
}
