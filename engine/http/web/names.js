// Names of records the API serves only as ids (who made a record, who moved a state, the relations
// of a past version): each fetched once per screen, only where the user may view them.
import { api } from './api.js';
import { h, recordLabel } from './dom.js';

/** The resource whose records the API's `created_by` and `changed_by` ids name. */
export const USER_RESOURCE = 'user';

/**
 * id → the record of resource `key`, for the distinct `ids`: the `known` records (served with a
 * record through `expand`) and one request per other id, where the user may view the resource.
 * An id the user cannot see is left out (shown as the id).
 */
export async function recordsById(app, key, ids, known = []) {
  const found = new Map(known.map((r) => [r.id, r]));
  const wanted = [...new Set(ids.filter((id) => id !== null && id !== undefined && !found.has(id)))];
  if (!wanted.length || !app.can(key, 'view')) return found;
  const path = app.meta.resources[key].path;
  const answers = await Promise.all(wanted.map((id) => api('GET', `${path}/${id}`)));
  for (const res of answers) if (res.status === 200) found.set(res.data.id, res.data);
  return found;
}

/** id → the user's record, for the distinct `ids` (empty when the user may not view users). */
export const usersById = (app, ids) => recordsById(app, USER_RESOURCE, ids);

/** A user by name with a link, or their id where their record is not known. */
export function userShown(app, users, id) {
  if (id === null || id === undefined) return '—';
  const user = users.get(id);
  if (!user) return String(id);
  return h('a', { href: `#/r/${USER_RESOURCE}/${id}`, title: `#${id}` }, recordLabel(app.meta.resources[USER_RESOURCE], user));
}
