// The sign-in page: session sign-in, then the user's API tokens (list, create, copy, revoke), sign-out.
// Plain browser JavaScript against the service's own API; no external assets.
const $ = (selector) => document.querySelector(selector);

function csrfToken() {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='));
  return cookie ? decodeURIComponent(cookie.slice('csrftoken='.length)) : '';
}

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = res.status === 204 ? null : await res.json();
  return { status: res.status, data };
}

function say(text) {
  $('#message').textContent = text;
  $('#message').hidden = !text;
}

/** The first message of a DRF-style error body. */
function errorText(data) {
  if (data && typeof data.detail === 'string') return data.detail;
  const [field, messages] = Object.entries(data ?? {})[0] ?? ['', ['Something went wrong.']];
  return field === 'non_field_errors' ? messages[0] : `${field}: ${messages[0]}`;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** The id of the token whose value is on show under "Copy the new token now". */
let shownTokenId = null;

function showNewToken(token) {
  shownTokenId = token?.id ?? null;
  $('#new-token-value').textContent = token?.token ?? '';
  $('#new-token').hidden = !token;
  $('#copy').textContent = 'Copy';
}

async function showTokens() {
  const { data } = await api('GET', '/api/auth/tokens');
  // a value stays on show only while its token exists (not revoked here or elsewhere)
  if (shownTokenId !== null && !data.some((t) => t.id === shownTokenId)) showNewToken(null);
  const rows = data.map((t) => {
    const tr = document.createElement('tr');
    tr.dataset.id = String(t.id);
    for (const text of [t.name, when(t.created), when(t.last_used), when(t.expires)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.textContent = 'Revoke';
    revoke.addEventListener('click', async () => {
      if (!confirm(`Revoke the token "${t.name}"? Programs using it are refused from then on.`)) return;
      const res = await api('DELETE', `/api/auth/tokens/${t.id}`);
      if (res.status !== 204) return say(errorText(res.data));
      await showTokens();
    });
    const td = document.createElement('td');
    td.append(revoke);
    tr.append(td);
    return tr;
  });
  $('#tokens').replaceChildren(...rows);
}

async function showAccount(user) {
  $('#whoami').textContent = user.username;
  $('#signin').hidden = true;
  $('#account').hidden = false;
  await showTokens();
}

function showSignIn() {
  $('#account').hidden = true;
  showNewToken(null);
  $('#signin').hidden = false;
}

$('#signin').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const res = await api('POST', '/api/auth/login', { username: form.get('username'), password: form.get('password') });
  if (res.status !== 200) return say(errorText(res.data));
  say('');
  event.target.reset();
  await showAccount(res.data);
});

$('#create').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const expires = form.get('expires') ? new Date(`${form.get('expires')}T23:59:59`).toISOString() : null;
  const res = await api('POST', '/api/auth/tokens', { name: form.get('name'), expires });
  if (res.status !== 201) return say(errorText(res.data));
  say('');
  event.target.reset();
  showNewToken(res.data);
  await showTokens();
});

$('#copy').addEventListener('click', async () => {
  await navigator.clipboard.writeText($('#new-token-value').textContent);
  $('#copy').textContent = 'Copied';
});

$('#signout').addEventListener('click', async () => {
  await api('POST', '/api/auth/logout');
  showSignIn();
});

const me = await api('GET', '/api/auth/me');
if (me.status === 200) await showAccount(me.data);
else showSignIn();
