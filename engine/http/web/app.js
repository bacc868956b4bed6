// The admin app: sign-in, navigation by module and resource, and the screens, all drawn from
// /app/metadata.json (the declarations) and the user's permissions from /api/auth/me. Screens live
// in the URL's hash: `#/` (API tokens), `#/r/<resource>` (list), `…/new`, `…/<id>` (a record).
import { api, errorText } from './api.js';
import { $, h, say } from './dom.js';
import { listScreen } from './list.js';
import { createScreen, recordScreen } from './record.js';
import { showNewToken, showTokens } from './tokens.js';

const meta = await (await fetch('/app/metadata.json')).json();
let user = null;
/** A message for the screen the next render draws (e.g. "Saved." after a save). */
let flash = '';

const app = {
  meta,
  can: (key, action) => Boolean(user) && user.permissions.includes(meta.resources[key].permissions[action]),
  go(hash, message = '') {
    flash = message;
    if (location.hash === hash) void render();
    else location.hash = hash;
  },
};

function navigation() {
  const current = location.hash.split('?')[0];
  const link = (href, text) => h('li', {}, h('a', { href, 'aria-current': href === current ? 'page' : undefined }, text));
  const modules = meta.modules
    .map((m) => ({ ...m, resources: m.resources.filter((key) => app.can(key, 'view')) }))
    .filter((m) => m.resources.length)
    .map((m) => h('li', {}, h('h2', {}, m.label), h('ul', {}, m.resources.map((key) => link(`#/r/${key}`, meta.resources[key].title)))));
  $('#nav').replaceChildren(h('ul', {}, link('#/', 'API tokens'), modules));
}

/** The screen the hash names: `{ key, id, creating, query }`, or null for the token screen. */
function route() {
  const [path, search = ''] = location.hash.replace(/^#\/?/, '').split('?');
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
  const resource = asSeen(meta.resources[r.key]);
  if (!resource) return [h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, `There is no resource "${r.key}".`)];
  if (!app.can(r.key, 'view')) return [h('h1', { tabindex: -1 }, resource.title), h('p', { class: 'error' }, 'You do not have permission to perform this action.')];
  if (r.creating) return createScreen(resource, app);
  if (r.id) return recordScreen(resource, r.id, app);
  return listScreen(resource, r.query, app);
}

let drawing = 0;
async function render() {
  if (!user) return;
  const message = flash;
  flash = '';
  say(message);
  navigation();
  const r = route();
  $('#account').hidden = r !== null;
  $('#view').hidden = r === null;
  if (r === null) return showTokens();
  const ticket = ++drawing;
  $('#view').setAttribute('aria-busy', 'true');
  const parts = await screen(r);
  // a later navigation has drawn meanwhile
  if (ticket !== drawing) return;
  $('#view').replaceChildren(...parts);
  // which drawing is on show: lets a test wait for the screen a navigation asked for
  $('#view').dataset.drawn = String(ticket);
  $('#view').removeAttribute('aria-busy');
  $('#view h1')?.focus();
}

function showSignedIn(me) {
  user = me;
  $('#whoami').textContent = me.username;
  $('#signin').hidden = true;
  $('#user').hidden = false;
  $('#nav').hidden = false;
  return render();
}

function showSignIn() {
  user = null;
  for (const part of ['#account', '#view', '#user', '#nav']) $(part).hidden = true;
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

const me = await api('GET', '/api/auth/me');
if (me.status === 200) await showSignedIn(me.data);
else showSignIn();
