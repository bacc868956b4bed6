/**
 * `GET {resource}/aggregate`: the groups of the records a list request would serve, one statement
 * on the server lists read from, bounded by AGGREGATE_MAX_GROUPS (400 beyond it) and, like every
 * request's statement, by STATEMENT_TIMEOUT_MS.
 */
import type { Principal } from '../auth/users.js';
import { fieldMask } from '../access/field-permissions.js';
import { rowsOf } from '../crud/rows.js';
import { planList } from '../crud/list-plan.js';
import type { ResourceService } from '../crud/service.js';
import { viewFor } from '../describe/view.js';
import { ValidationError } from '../errors.js';
import { NOT_AGGREGATED, planAggregate } from './aggregate-plan.js';

/** The groups as a JSON array's text. */
export async function aggregate(service: ResourceService, user: Principal, query: Record<string, string>): Promise<string> {
  const mask = fieldMask(service.resource, user);
  const listed = Object.fromEntries(Object.entries(query).filter(([name]) => !(NOT_AGGREGATED as readonly string[]).includes(name)));
  const { where } = planList(service.resource, service.filters, service.orderable, mask, listed, service.shapes);
  const plan = planAggregate(viewFor(service.view, mask), [...service.visible(user), ...where], query, service.reports);
  // a text per request's names: not one of the prepared statements, which lists and details keep
  const rows = rowsOf(await service.reads.read((db) => db.raw(plan.statement.sql, plan.statement.bindings as never[])));
  if (rows.length > plan.maxGroups) {
    throw ValidationError.field('group_by', `More than ${plan.maxGroups} groups (the server's AGGREGATE_MAX_GROUPS): group by fewer fields or coarser time buckets, or filter the records.`);
  }
  return `[${rows.map((r) => r.json as string).join(',')}]`;
}
