/**
 * `/app/summary.json`, the admin app's dashboard counts: per resource the signed-in user may view,
 * how many records they see, and per state of its first state field how many are in it. One
 * statement for every resource (a `union all` of grouped counts), each under the resource's view
 * rule, so the numbers are those the user's lists would show.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { mayPerform, methods } from '../http/resource-routes.js';
import type { RouteTable } from '../http/route-table.js';
import type { Resource } from '../registry/resource.js';
import { ROW } from '../storage/serialise.js';
import { col, frag, q, type Fragment } from '../storage/sql.js';

export const SUMMARY_PATH = '/app/summary.json';

export interface ResourceCounts {
  total: number;
  /** Records per state of the resource's state field; absent for resources without one. */
  states?: Record<string, number>;
}

function countsOf(resource: Resource, user: Principal): Fragment {
  const state = resource.fields.find((f) => f.spec.type === 'state' && f.column !== null);
  const visible = accessPredicate(resource, 'view', user, ROW);
  const grouped = state ? `${col(ROW, state.column!)}::text` : 'null::text';
  return frag(
    `select ?::text as resource, ${grouped} as state, count(*)::int as count from ${q(resource.table)} ${ROW}${visible ? ` where ${visible.sql}` : ''} group by 2`,
    [resource.key, ...(visible?.bindings ?? [])],
  );
}

export async function summaryFor(db: Knex, resources: readonly Resource[], user: Principal): Promise<Record<string, ResourceCounts>> {
  const viewable = resources.filter((r) => mayPerform(user, r.permissions.view));
  const summary: Record<string, ResourceCounts> = Object.fromEntries(viewable.map((r) => [r.key, { total: 0 }]));
  if (!viewable.length) return summary;
  const parts = viewable.map((r) => countsOf(r, user));
  const { rows } = (await db.raw(parts.map((p) => `(${p.sql})`).join(' union all '), parts.flatMap((p) => p.bindings) as Knex.RawBinding[])) as {
    rows: { resource: string; state: string | null; count: number }[];
  };
  for (const row of rows) {
    const counts = summary[row.resource]!;
    counts.total += row.count;
    if (row.state !== null) counts.states = { ...counts.states, [row.state]: row.count };
  }
  return summary;
}

export function mountSummary(routes: RouteTable, db: Knex, resources: readonly Resource[]): void {
  routes.add(
    SUMMARY_PATH,
    methods({
      GET: async (ctx, user) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = await summaryFor(db, resources, user);
      },
    }),
  );
}
