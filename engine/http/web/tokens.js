// The API tokens screen: the signed-in user's tokens (list, create, copy, revoke).
import { api, errorText } from './api.js';
import { $, h, say } from './dom.js';
import { lang, t } from './i18n.js';

const when = (iso) => (iso ? new Date(iso).toLocaleString(lang) : '—');

/** The id of the token whose value is on show under "Copy the new token now". */
let shownTokenId = null;

export function showNewToken(token) {
  shownTokenId = token?.id ?? null;
  $('#new-token-value').textContent = token?.token ?? '';
  $('#new-token').hidden = !token;
  $('#copy').textContent = t('copy');
}

async function revoke(token) {
  if (!confirm(t('revokeAsk', { name: token.name }))) return;
  const res = await api('DELETE', `/api/auth/tokens/${token.id}`);
  if (res.status !== 204) return say(errorText(res.data));
  await showTokens();
}

export async function showTokens() {
  const { data } = await api('GET', '/api/auth/tokens');
  // a value stays on show only while its token exists (not revoked here or elsewhere)
  if (shownTokenId !== null && !data.some((token) => token.id === shownTokenId)) showNewToken(null);
  const rows = data.map((token) =>
    h(
      'tr',
      { 'data-id': token.id },
      [token.name, when(token.created), when(token.last_used), when(token.expires)].map((text) => h('td', {}, text)),
      h('td', {}, h('button', { type: 'button', onclick: () => revoke(token) }, t('revoke'))),
    ),
  );
  $('#tokens').replaceChildren(...rows);
}

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
  $('#copy').textContent = t('copied');
});
