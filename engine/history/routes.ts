/**
 * The history routes: `{resource}/{id}/history` (the record's versions, under its view permission)
 * and `{resource}/{id}/history/{version}/restore` (under its change permission) for every resource;
 * `/api/trash/{id}/restore`, whose permissions are those of the entry's resource (trash.ts).
 */
import type { Principal } from '../auth/users.js';
import { permissionDenied } from '../errors.js';
import { idOf, mayPerform, methods } from '../http/resource-routes.js';
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

/** `/api/trash/{id}/restore`, beside the routes the trash has as an engine table (resource.ts). */
export function mountTrashRestore(routes: RouteTable, trash: Trash): void {
  routes.add(
    `${TRASH_PATH}/:id/restore`,
    methods({
      POST: async (ctx, user, id) => {
        sendJson(ctx, await trash.restore(user, idOf(id)));
      },
    }),
  );
}
