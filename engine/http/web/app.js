// The admin app: sign-in, navigation by module and resource, and the screens, all drawn from
// /app/metadata.json (the declarations) and the user's permissions from /api/auth/me. Screens live
// in the URL's hash: `#/` (the dashboard), `#/tokens` (API tokens), `#/trash` (deleted records),
// `#/r/<resource>` (list), `…/new`, `…/<id>` (a record; `?tab=history` its history tab).
import { api, errorText } from './api.js';
import { dashboardScreen } from './dashboard.js';
import './files.js';
import { $, h, navTitle, say } from './dom.js';
import { inLang, t, translatePage } from './i18n.js';
import { listScreen } from './list.js';
import { createScreen, recordScreen } from './record.js';
import { showNewToken, showTokens } from './tokens.js';
import { mayUseTrash, trashScreen } from './trash.js';

translatePage();
const meta = await (await fetch('/app/metadata.json')).json();
let user = null;
/** A message for the screen the next render draws (e.g. "Saved." after a save): `{ text, kind }`. */
let flash = null;

const app = {
  meta,
  get user() {
    return user;
  },
  can: (key, action) => Boolean(user) && user.permissions.includes(meta.resources[key].permissions[action]),
  /** Whether the user may read the engine table `key` (`audit`), by the permission name the metadata gives. */
  mayRead: (key) => Boolean(user) && user.permissions.includes(meta.tables[key].permissions.view),
  go(hash, message = '', kind = 'success') {
    flash = message ? { text: message, kind } : null;
    if (location.hash === hash) void render();
    else location.hash = hash;
  },
};

/** Modules the user opened in the navigation, kept across visits. */
const OPEN_KEY = 'admin-app.open-modules';
const openModules = new Set(JSON.parse(window.localStorage.getItem(OPEN_KEY) ?? '[]'));
/** Few enough resources to show all at once: every module open. */
const SHORT_NAVIGATION = 12;

function navigation() {
  const current = location.hash.split('?')[0];
  const currentKey = route()?.key;
  const wanted = $('#nav-search').value.trim().toLowerCase();
  const link = (href, text) => h('li', {}, h('a', { href, 'aria-current': href === current ? 'page' : undefined }, text));
  const visible = meta.modules.map((m) => ({ ...m, resources: m.resources.filter((key) => app.can(key, 'view')) })).filter((m) => m.resources.length);
  const short = visible.reduce((n, m) => n + m.resources.length, 0) <= SHORT_NAVIGATION;
  const matches = (m, key) => !wanted || [navTitle(meta.resources[key]), meta.resources[key].title, inLang(m.labels)].some((s) => s.toLowerCase().includes(wanted));
  const groups = visible
    .map((m) => ({ ...m, resources: m.resources.filter((key) => matches(m, key)) }))
    .filter((m) => m.resources.length)
    .map((m) => {
      const open = short || Boolean(wanted) || m.resources.includes(currentKey) || openModules.has(m.name);
      const group = h('details', { open, 'data-module': m.name }, h('summary', {}, inLang(m.labels)), h('ul', {}, m.resources.map((key) => link(`#/r/${key}`, navTitle(meta.resources[key])))));
      group.addEventListener('toggle', () => {
        if (group.open) openModules.add(m.name);
        else openModules.delete(m.name);
        window.localStorage.setItem(OPEN_KEY, JSON.stringify([...openModules]));
      });
      return h('li', {}, group);
    });
  $('#nav-tree').replaceChildren(h('ul', {}, link('#/tokens', t('apiTokens')), mayUseTrash(app) ? link('#/trash', t('trash')) : null, groups), wanted && !groups.length ? h('p', { class: 'hint' }, t('noResourceFound')) : '');
}

$('#nav-search').addEventListener('input', navigation);
$('#nav-search').addEventListener('keydown', (event) => {
  const first = $('#nav-tree details a');
  if (event.key === 'Enter' && first) {
    event.preventDefault();
    location.hash = first.getAttribute('href');
  }
});

/** On a narrow screen the navigation is a menu the button opens. */
function showMenu(open) {
  $('#nav').classList.toggle('open', open);
  $('#menu').setAttribute('aria-expanded', String(open));
}
$('#menu').addEventListener('click', () => showMenu(!$('#nav').classList.contains('open')));

/** The screen the hash names: `{ key, id, creating, query }`, 'tokens', `{ trash, query }`, or null for the dashboard. */
function route() {
  const [path, search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  if (path === 'tokens') return 'tokens';
  if (path === 'trash') return { trash: true, query: new URLSearchParams(search) };
  if (!path.startsWith('r/')) return null;
  const parts = path.slice(2).split('/');
  const last = parts.at(-1);
  const isRecord = parts.length > 1 && (last === 'new' || /^\d+$/.test(last));
  const key = isRecord ? parts.slice(0, -1).join('/') : parts.join('/');
  return { key, id: isRecord && last !== 'new' ? last : null, creating: last === 'new' && isRecord, query: new URLSearchParams(search) };
}

/**
 * A resource's metadata as the user may use it: fields behind a `read` permission they lack left
 * out (columns, filters, sorting and search too), those behind a `write` permission not offered.
 */
function asSeen(resource) {
  if (!resource) return resource;
  const holds = (name) => name === undefined || user.permissions.includes(name);
  const hidden = new Set(resource.fields.filter((f) => !holds(f.permission?.read)).map((f) => f.name));
  const fields = resource.fields.filter((f) => !hidden.has(f.name)).map((f) => (holds(f.permission?.write) ? f : { ...f, writable: false }));
  const shown = (name) => !hidden.has(name);
  const hiddenLabels = new Set(resource.fields.filter((f) => hidden.has(f.name)).map((f) => f.label));
  return {
    ...resource,
    fields,
    listColumns: resource.listColumns.filter(shown),
    orderable: resource.orderable.filter(shown),
    filters: resource.filters.filter((f) => shown(f.key)),
    search: resource.search.filter((label) => !hiddenLabels.has(label)),
  };
}

async function screen(r) {
  if (r === null) return dashboardScreen(app);
  if (r.trash) return trashScreen(r.query, app);
  const resource = asSeen(meta.resources[r.key]);
  if (!resource) return [h('h1', { tabindex: -1 }, t('notFound')), h('p', {}, t('noResource', { key: r.key }))];
  if (!app.can(r.key, 'view')) return [h('h1', { tabindex: -1 }, navTitle(resource)), h('p', { class: 'error' }, t('forbidden'))];
  if (r.creating) return createScreen(resource, app);
  if (r.id) return recordScreen(resource, r.id, app, r.query);
  return listScreen(resource, r.query, app);
}

let drawing = 0;
async function render() {
  if (!user) return;
  const message = flash;
  flash = null;
  say(message?.text ?? '', message?.kind);
  navigation();
  showMenu(false);
  const r = route();
  $('#account').hidden = r !== 'tokens';
  $('#view').hidden = r === 'tokens';
  if (r === 'tokens') {
    await showTokens();
    return $('#account-title').focus();
  }
  const ticket = ++drawing;
  $('#view').setAttribute('aria-busy', 'true');
  const parts = await screen(r);
  // a later navigation has drawn meanwhile
  if (ticket !== drawing) return;
  // screens leave out what they do not show as null
  $('#view').replaceChildren(...parts.filter((p) => p !== null && p !== undefined));
  // which drawing is on show: lets a test wait for the screen a navigation asked for
  $('#view').dataset.drawn = String(ticket);
  $('#view').removeAttribute('aria-busy');
  $('#view h1')?.focus();
}

function showSignedIn(me) {
  user = me;
  $('#whoami').textContent = me.username;
  $('#signin').hidden = true;
  for (const part of ['#user', '#nav', '#menu']) $(part).hidden = false;
  return render();
}

function showSignIn() {
  user = null;
  for (const part of ['#account', '#view', '#user', '#nav', '#menu']) $(part).hidden = true;
  showNewToken(null);
  $('#signin').hidden = false;
}

$('#signin').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const res = await api('POST', '/api/auth/login', { username: form.get('username'), password: form.get('password') });
  if (res.status !== 200) return say(errorText(res.data));
  event.target.reset();
  await showSignedIn(res.data);
});

$('#signout').addEventListener('click', async () => {
  await api('POST', '/api/auth/logout');
  say('');
  showSignIn();
});

window.addEventListener('hashchange', () => void render());

// the CSRF cookie lives exactly as long as a session: without it, asking who is signed in would only log a 401
const me = document.cookie.split('; ').some((c) => c.startsWith('csrftoken=')) ? await api('GET', '/api/auth/me') : null;
if (me?.status === 200) await showSignedIn(me.data);
else showSignIn();
