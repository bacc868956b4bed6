/**
 * The history routes: `{resource}/{id}/history` (the record's versions, under its view permission)
 * and `{resource}/{id}/history/{version}/restore` (under its change permission) for every resource;
 * `/api/trash` (list, detail, purge) and `/api/trash/{id}/restore`, whose permissions are those of
 * each entry's resource (engine/history/trash.ts).
 */
import type { Context } from 'koa';
import type { Principal } from '../auth/users.js';
import { notFound, permissionDenied } from '../errors.js';
import { pageUrl } from '../http/list-headers.js';
import { idOf, mayPerform, methods, queryOf } from '../http/resource-routes.js';
import { sendJson } from '../http/json-response.js';
import type { RouteTable } from '../http/route-table.js';
import type { Revisions } from './revisions.js';
import { TRASH_PATH, type Trash } from './trash.js';

export function mountHistory(routes: RouteTable, revisions: Revisions): void {
  const { resource } = revisions.service;
  const may = (user: Principal, action: 'view' | 'change') => {
    if (!mayPerform(user, resource.permissions[action])) throw permissionDenied();
  };
  routes.add(
    `${resource.path}/:id/history`,
    methods({
      GET: async (ctx, user, id) => {
        may(user, 'view');
        ctx.body = await revisions.list(user, idOf(id));
      },
    }),
  );
  routes.add(
    `${resource.path}/:id/history/:id/restore`,
    methods({
      POST: async (ctx, user, id, version) => {
        may(user, 'change');
        sendJson(ctx, await revisions.restore(user, idOf(id), idOf(version)));
      },
    }),
  );
}

export function mountTrash(routes: RouteTable, trash: Trash): void {
  const served = (record: unknown) => trash.served(record as Parameters<Trash['served']>[0]);
  routes.add(
    TRASH_PATH,
    methods({
      GET: async (ctx: Context, user) => {
        const page = await trash.list.list(queryOf(ctx), trash.visible(user));
        if (page.more) ctx.set('Link', `<${pageUrl(ctx, { offset: page.offset + page.limit })}>; rel="next"`);
        ctx.body = page.records.map(served);
      },
    }),
  );
  routes.add(
    `${TRASH_PATH}/:id`,
    methods({
      GET: async (ctx, user, id) => {
        const record = await trash.list.detail(idOf(id), trash.visible(user));
        if (record === undefined) throw notFound();
        ctx.body = served(record);
      },
      DELETE: async (ctx, user, id) => {
        await trash.purge(user, idOf(id));
        ctx.status = 204;
      },
    }),
  );
  routes.add(
    `${TRASH_PATH}/:id/restore`,
    methods({
      POST: async (ctx, user, id) => {
        sendJson(ctx, await trash.restore(user, idOf(id)));
      },
    }),
  );
}

