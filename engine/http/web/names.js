// Names of records the API serves only as ids (who made a record, who moved a state): each fetched
// once per screen, only where the user may view them.
import { api } from './api.js';
import { h, recordLabel } from './dom.js';

/** The resource whose records the API's `created_by` and `changed_by` ids name. */
export const USER_RESOURCE = 'user';

/** id → the user's record, for the distinct `ids` (empty when the user may not view users). */
export async function usersById(app, ids) {
  const wanted = [...new Set(ids.filter((id) => id !== null && id !== undefined))];
  if (!app.can(USER_RESOURCE, 'view')) return new Map();
  const path = app.meta.resources[USER_RESOURCE].path;
  const answers = await Promise.all(wanted.map((id) => api('GET', `${path}/${id}`)));
  return new Map(answers.filter((res) => res.status === 200).map((res) => [res.data.id, res.data]));
}

/** A user by name with a link, or their id where their record is not known. */
export function userShown(app, users, id) {
  if (id === null || id === undefined) return '—';
  const user = users.get(id);
  if (!user) return String(id);
  return h('a', { href: `#/r/${USER_RESOURCE}/${id}`, title: `#${id}` }, recordLabel(app.meta.resources[USER_RESOURCE], user));
}
