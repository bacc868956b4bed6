/**
 * Routes of spec 4.1 for every declared resource: collection (GET list, POST create) and item
 * (GET, PUT, PATCH, DELETE), plus `/transitions` for resources with a lifecycle. The model
 * permission is checked before anything else is read; other methods get 405 with `Allow`.
 */
import type { Context } from 'koa';
import type { Principal } from '../auth/users.js';
import { emptyMap, methodNotAllowed, notFound, permissionDenied } from '../errors.js';
import type { RecordWrites } from '../crud/declared-writes.js';
import { permissionOf, type Action, type Resource } from '../registry/resource.js';
import type { ResourceService } from '../crud/service.js';
import type { Precondition } from '../storage/entity-tag.js';
import type { ListTurns } from './list-turns.js';
import type { IdempotentPosts } from './idempotency.js';
import { entityTag, ifMatch, noneMatchNames } from './conditional.js';
import { readJsonBody } from './json-body.js';
import { sendJson, sendJsonArray } from './json-response.js';
import { listHeaders } from './list-headers.js';
import type { Route, RouteTable } from './route-table.js';
import { exportFormat, sendExport } from '../reporting/export.js';
import { mountReports } from '../reporting/routes.js';

/** `id`: the path's `:id` segment, unchecked; `inner` its second, on a route with two. */
export type Handler = (ctx: Context, user: Principal, id: string | undefined, inner?: string) => Promise<void>;

const ACTION_OF: Record<string, Action> = { GET: 'view', HEAD: 'view', POST: 'add', PUT: 'change', PATCH: 'change', DELETE: 'delete' };

export function mayPerform(user: Principal, permission: string): boolean {
  return user.isSuperuser || user.permissions.has(permission);
}

/** Last value of each query parameter, as DRF reads them; read from the query string itself, a third of what Koa's `ctx.query` costs (its arrays, its cache). */
export function queryOf(ctx: Context): Record<string, string> {
  const out = emptyMap<string>();
  for (const [k, v] of new URLSearchParams(ctx.querystring)) out[k] = v;
  return out;
}

/** The id a path segment names: digits only, as every route reads it (`1e0`, `0x1`, ` 1` name none); 404 otherwise. */
export function idOf(given: string | undefined): number {
  const raw = given ?? '';
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2147483647 || Number(raw) < 1) throw notFound();
  return Number(raw);
}

/** Dispatches by method for the signed-in user; answers OPTIONS and refuses what the path does not offer. */
export function methods(handlers: Partial<Record<string, Handler>>): Route {
  const allowed = Object.keys(handlers);
  return async (ctx, id, inner) => {
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    if (method === 'OPTIONS') {
      ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
      ctx.status = 204;
      return;
    }
    const handler = handlers[method];
    if (!handler) throw methodNotAllowed(ctx.method, allowed);
    await handler(ctx, ctx.state.user as Principal, id, inner);
  };
}

/** `methods`, with the resource's model permission for each method checked first. */
export function dispatch(service: ResourceService, handlers: Partial<Record<string, Handler>>) {
  const guarded = Object.fromEntries(
    Object.entries(handlers).map(([method, handler]) => [
      method,
      async (ctx: Context, user: Principal, id: string | undefined, inner?: string) => {
        const permission = permissionOf(service.resource, ACTION_OF[method]!);
        if (permission !== undefined && !mayPerform(user, permission)) throw permissionDenied();
        await handler!(ctx, user, id, inner);
      },
    ]),
  );
  return methods(guarded);
}

/** The request's If-Match; undefined without one. */
function preconditionOf(ctx: Context): Precondition | undefined {
  const header = ctx.get('If-Match');
  return header ? ifMatch(header) : undefined;
}

/** A record's JSON with its entity tag. */
function sendTagged(ctx: Context, text: string): void {
  ctx.set('ETag', entityTag(text));
  sendJson(ctx, text);
}

/** The handlers of the actions `resource` serves, by method: the others answer 405. */
const served = (resource: Resource, handlers: Partial<Record<string, Handler>>): Partial<Record<string, Handler>> =>
  Object.fromEntries(Object.entries(handlers).filter(([method]) => resource.actions.includes(ACTION_OF[method]!)));

/**
 * `writes`: who writes its records, the service itself (with `If-Match`) unless the resource is an
 * engine table that declares its own writes (crud/declared-writes.ts).
 */
export function mountResource(routes: RouteTable, service: ResourceService, idempotent: IdempotentPosts, lists: ListTurns, writes: RecordWrites = service): void {
  const { resource } = service;
  const { path } = resource;
  routes.add(
    path,
    dispatch(
      service,
      served(resource, {
        GET: async (ctx, user) => {
          const query = queryOf(ctx);
          const format = exportFormat(ctx, query);
          const turn = lists.take(ctx, user.id);
          if (turn) await turn;
          if (format) return sendExport(ctx, service, user, query, format);
          const answer = await service.list(user, query);
          await sendJsonArray(ctx, answer.records, () => listHeaders(ctx, answer));
        },
        POST: async (ctx, user) => {
          await idempotent.run(ctx, user, async (body, writer) => sendJson(ctx, await writes.create(writer, body), 201));
        },
      }),
    ),
  );
  mountReports(routes, service);
  routes.add(
    `${path}/:id`,
    dispatch(
      service,
      served(resource, {
        GET: async (ctx, user, id) => {
          const text = await service.retrieve(user, idOf(id), queryOf(ctx));
          const tag = entityTag(text);
          ctx.set('ETag', tag);
          const known = ctx.get('If-None-Match');
          if (known && noneMatchNames(known, tag)) ctx.status = 304;
          else sendJson(ctx, text);
        },
        PUT: async (ctx, user, id) => {
          sendTagged(ctx, await writes.update(user, idOf(id), await readJsonBody(ctx), false, preconditionOf(ctx)));
        },
        PATCH: async (ctx, user, id) => {
          sendTagged(ctx, await writes.update(user, idOf(id), await readJsonBody(ctx), true, preconditionOf(ctx)));
        },
        DELETE: async (ctx, user, id) => {
          await writes.destroy(user, idOf(id), preconditionOf(ctx));
          ctx.status = 204;
        },
      }),
    ),
  );
  if (service.hasStates) {
    routes.add(
      `${path}/:id/transitions`,
      dispatch(service, {
        GET: async (ctx, user, id) => {
          ctx.body = await service.stateLog(user, idOf(id));
        },
      }),
    );
  }
}
