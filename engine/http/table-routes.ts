/**
 * Routes over an engine table (TableList): list and detail, and where `writes` are given, create,
 * replace, update and delete; each method behind its permission, every other method 405. The
 * list says where its next page starts in `Link`.
 */
import type { Context } from 'koa';
import type { Principal } from '../auth/users.js';
import { notFound, permissionDenied } from '../errors.js';
import type { TableList } from '../crud/table-list.js';
import type { Fragment } from '../storage/sql.js';
import { readJsonBody } from './json-body.js';
import { pageUrl } from './list-headers.js';
import { idOf, mayPerform, methods, queryOf } from './resource-routes.js';
import type { RouteTable } from './route-table.js';

/** Writes of one record; each answers the record as served (undefined: not found). */
export interface TableWrites {
  create(user: Principal, body: unknown): Promise<unknown>;
  update(user: Principal, id: number, body: unknown, partial: boolean): Promise<unknown>;
  /** false: not found. */
  remove(user: Principal, id: number): Promise<boolean>;
}

export interface TableRoutes {
  /** `<app>.<action>_<model>` names: `view` for reads, `add`, `change` and `delete` for writes. */
  permissions: { view: string; add?: string; change?: string; delete?: string };
  list: TableList;
  visible(user: Principal): Fragment[];
  /** The record JSON as `user` is served it, where it differs between callers (the audit trail's field permissions). */
  json?(user: Principal): string;
  writes?: TableWrites;
}

const found = <T>(record: T | undefined): T => {
  if (record === undefined) throw notFound();
  return record;
};

export function mountTable(routes: RouteTable, path: string, { permissions, list, visible, json, writes }: TableRoutes): void {
  const may = (user: Principal, permission: string | undefined): void => {
    if (!permission || !mayPerform(user, permission)) throw permissionDenied();
  };
  const view = async (ctx: Context, user: Principal) => {
    may(user, permissions.view);
    const page = await list.list(queryOf(ctx), visible(user), json?.(user));
    if (page.more) ctx.set('Link', `<${pageUrl(ctx, { offset: page.offset + page.limit })}>; rel="next"`);
    ctx.body = page.records;
  };
  const detail = async (ctx: Context, user: Principal, id: string | undefined) => {
    may(user, permissions.view);
    ctx.body = found(await list.detail(idOf(id), visible(user), json?.(user)));
  };
  if (!writes) {
    routes.add(path, methods({ GET: view }));
    routes.add(`${path}/:id`, methods({ GET: detail }));
    return;
  }
  const change = (partial: boolean) => async (ctx: Context, user: Principal, id: string | undefined) => {
    may(user, permissions.change);
    ctx.body = found(await writes.update(user, idOf(id), await readJsonBody(ctx), partial));
  };
  routes.add(
    path,
    methods({
      GET: view,
      POST: async (ctx, user) => {
        may(user, permissions.add);
        ctx.body = await writes.create(user, await readJsonBody(ctx));
        ctx.status = 201;
      },
    }),
  );
  routes.add(
    `${path}/:id`,
    methods({
      GET: detail,
      PUT: change(false),
      PATCH: change(true),
      DELETE: async (ctx, user, id) => {
        may(user, permissions.delete);
        found((await writes.remove(user, idOf(id))) || undefined);
        ctx.status = 204;
      },
    }),
  );
}
