/** The reporting routes of one resource: its aggregate, beside the list and before the `{id}` routes. */
import type { ResourceService } from '../crud/service.js';
import { sendJson } from '../http/json-response.js';
import { dispatch, queryOf } from '../http/resource-routes.js';
import type { RouteTable } from '../http/route-table.js';
import { aggregate } from './aggregates.js';

export const AGGREGATE_SUFFIX = '/aggregate';

export function mountReports(routes: RouteTable, service: ResourceService): void {
  routes.add(
    `${service.resource.path}${AGGREGATE_SUFFIX}`,
    dispatch(service, {
      GET: async (ctx, user) => sendJson(ctx, await aggregate(service, user, queryOf(ctx))),
    }),
  );
}
