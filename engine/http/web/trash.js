// The trash (`#/trash`): records deleted from resources declared with a trash, newest first, as
// the API lists them to the user (their view permission and rules decide), filtered by resource,
// by who deleted them (a user picker) and since when (the filters are the hash's query, as a
// list's are); each restored (with its links) or purged for good where the user holds the
// resource's delete permission. Where the trash lives comes from the metadata (it is an engine table).
import { api, errorText } from './api.js';
import { h, navTitle, recordLabel, recordName, say, shortTitle, titleInSentence } from './dom.js';
import { lang, t } from './i18n.js';
import { USER_RESOURCE, userShown, usersById } from './names.js';
import { picker } from './picker.js';

const PAGE = 50;

/** Resources with a trash the user may view: the trash's resource filter, and whether to offer it at all. */
const trashedOf = (app) => Object.values(app.meta.resources).filter((r) => r.trash && app.can(r.key, 'view'));

export const mayUseTrash = (app) => trashedOf(app).length > 0;

const hashOf = (query) => `#/trash${query.size ? `?${query}` : ''}`;

/** The API's trash filters the screen offers, all named in the hash as in the API. */
const FILTERS = ['resource', 'deleted_by', 'deleted_after'];

const filter = (id, text, control) => h('div', { class: 'filter' }, h('label', { for: id }, text), control);

function filterForm(query, app) {
  const chosen = query.get('resource') ?? '';
  const deleter = picker({ id: 'trash-deleted_by', label: t('deletedBy'), target: app.meta.resources[USER_RESOURCE], value: query.get('deleted_by'), many: false, empty: t('any'), canView: app.can(USER_RESOURCE, 'view') });
  // the picker's select (or, without the users' view permission, its id input) is the parameter
  deleter.element.querySelector('select, input:not(.picker-search)').setAttribute('name', 'deleted_by');
  const form = h(
    'form',
    { id: 'trash-filters', role: 'search', 'aria-label': t('filterTrash') },
    filter('trash-resource', t('resource'), h('select', { id: 'trash-resource', name: 'resource' }, h('option', { value: '' }, t('any')), trashedOf(app).map((r) => h('option', { value: r.key, selected: r.key === chosen }, navTitle(r))))),
    filter('trash-deleted_by', t('deletedBy'), deleter.element),
    filter('trash-deleted_after', t('deletedAfter'), h('input', { id: 'trash-deleted_after', name: 'deleted_after', type: 'date', value: query.get('deleted_after') ?? undefined })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('apply')), h('a', { href: '#/trash' }, t('reset'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (FILTERS.includes(name) && value !== '') next.set(name, String(value));
    app.go(hashOf(next));
  });
  return form;
}

/** An entry's record as the user would name it, and its resource (undefined for one the app does not know). */
const named = (entry, app) => {
  const meta = app.meta.resources[entry.resource];
  return { meta, name: meta ? recordName(meta, entry.values) : `#${entry.record_id}` };
};

async function restore(entry, app) {
  const { meta, name } = named(entry, app);
  const res = await api('POST', `${app.meta.tables.trash.path}/${entry.id}/restore`, {});
  if (res.status === 200) return app.go(`#/r/${entry.resource}/${entry.record_id}`, t('restoredRecord', { title: shortTitle(meta), name }));
  say(errorText(res.data));
}

async function purge(entry, query, app) {
  const { meta, name } = named(entry, app);
  if (!confirm(t('purgeAsk', { title: titleInSentence(meta), name }))) return;
  const res = await api('DELETE', `${app.meta.tables.trash.path}/${entry.id}`);
  if (res.status === 204) return app.go(hashOf(query), t('purged', { title: shortTitle(meta), name }));
  say(errorText(res.data));
}

function entriesTable(entries, users, query, app) {
  const row = (entry) => {
    const { meta } = named(entry, app);
    const mayDelete = meta && app.can(entry.resource, 'delete');
    return h(
      'tr',
      { 'data-entry': entry.id, 'data-record': `${entry.resource}/${entry.record_id}` },
      h('td', {}, meta ? shortTitle(meta) : entry.resource),
      h('td', {}, meta ? recordLabel(meta, entry.values) : `#${entry.record_id}`),
      h('td', {}, h('time', { datetime: entry.deleted_at }, new Date(entry.deleted_at).toLocaleString(lang))),
      h('td', {}, userShown(app, users, entry.deleted_by)),
      h(
        'td',
        { class: 'row-actions' },
        mayDelete ? h('button', { type: 'button', class: 'restore', onclick: () => restore(entry, app) }, t('restore')) : null,
        mayDelete ? h('button', { type: 'button', class: 'purge danger', onclick: () => purge(entry, query, app) }, t('purge')) : null,
      ),
    );
  };
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'trash' },
      h('caption', {}, t('deletedRecords')),
      h('thead', {}, h('tr', {}, [t('resource'), t('record'), t('deletedAt'), t('by')].map((text) => h('th', { scope: 'col' }, text)), h('td', {}))),
      h('tbody', {}, entries.map(row)),
    ),
  );
}

/** Previous and next pages by offset; next only where the API links one. */
function paging(query, offset, hasNext) {
  const at = (n) => {
    const q = new URLSearchParams(query);
    if (n) q.set('offset', String(n));
    else q.delete('offset');
    return hashOf(q);
  };
  const links = [offset > 0 ? h('a', { href: at(Math.max(0, offset - PAGE)), rel: 'prev' }, t('previous')) : null, hasNext ? h('a', { href: at(offset + PAGE), rel: 'next' }, t('next')) : null].filter(Boolean);
  return links.length ? h('nav', { class: 'pager', 'aria-label': t('pages') }, links) : null;
}

export async function trashScreen(query, app) {
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const name of FILTERS) if (query.get(name)) params.set(name, query.get(name));
  const res = await api('GET', `${app.meta.tables.trash.path}?${params}`);
  const top = [h('h1', { tabindex: -1 }, t('trash')), h('p', { class: 'description' }, t('trashHelp')), filterForm(query, app)];
  // a filter the API refuses: its message, beside the filters to correct it with
  if (res.status !== 200) return [...top, h('p', { class: 'error', role: 'alert' }, errorText(res.data))];
  const entries = res.data;
  const users = await usersById(app, entries.map((e) => e.deleted_by));
  return [...top, entries.length ? entriesTable(entries, users, query, app) : h('p', {}, t(FILTERS.some((name) => query.get(name)) ? 'trashNoneFound' : 'trashEmpty')), paging(query, offset, /rel="next"/.test(res.headers.get('Link') ?? ''))];
}
