/**
 * Who may view a record as a recorded change left it (a webhook event's values): the resource's
 * view permission and its view rule, compiled by visibility.ts as for the audit trail
 * (recordedPredicate: inheritance too is read from the recorded row), evaluated on the row as of that
 * change. That row is the record's current row with the recorded columns put back, so columns the
 * capture does not record (`created_by`, `created`) keep their stored values; once the record is
 * gone, the recorded columns alone (the rest null, and its links gone with it).
 */
import type { Principal } from '../auth/users.js';
import { mayPerform } from '../http/resource-routes.js';
import type { Resource } from '../registry/resource.js';
import { FALSE, q, TRUE, type Fragment } from '../storage/sql.js';
import { recordedPredicate } from './visibility.js';

/** What the row at `alias` must pass for `user` to view it: FALSE without the view permission, TRUE when nothing else restricts. */
export function viewCondition(resource: Resource, user: Principal, alias: string): Fragment {
  if (!mayPerform(user, resource.permissions.view)) return FALSE;
  return recordedPredicate(resource, 'view', user, alias) ?? TRUE;
}

/** A FROM item: the row `alias` of `resource` whose id is the SQL `id`, as the jsonb `values` (column → value) recorded it. */
export const recordedRow = (resource: Resource, id: string, values: string, alias: string): string =>
  `jsonb_populate_record((select as_stored from ${q(resource.table)} as_stored where as_stored.id = ${id}), ${values}) ${alias}`;
