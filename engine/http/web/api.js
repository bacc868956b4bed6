// The service's own API from the browser: the session cookie, and the CSRF token it asks of writes.

/** The CSRF token writes under the session send in `X-CSRFToken`. */
export function csrfToken() {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='));
  return cookie ? decodeURIComponent(cookie.slice('csrftoken='.length)) : '';
}

/** `{ status, data, headers }`; data is null for 204 and for answers that are not JSON. */
export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = res.status !== 204 && (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, data: json ? await res.json() : null, headers: res.headers };
}

/** The first message of a DRF-style error body. */
export function errorText(data) {
  if (data && typeof data.detail === 'string') return data.detail;
  const [field, messages] = Object.entries(data ?? {})[0] ?? ['', ['Something went wrong.']];
  const message = Array.isArray(messages) ? messages[0] : String(messages);
  return field === 'non_field_errors' ? message : `${field}: ${message}`;
}
