// Building the page: elements from tag, attributes and children; no HTML strings, so no injection.

/** `h('a', { href: '#/', onclick: f }, 'Home')`; false, null and undefined attributes and children are left out. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

export const $ = (selector) => document.querySelector(selector);

/** "Issue (Meldung)" → "Issue": the title without its German name. */
export const shortTitle = (meta) => meta.title.replace(/\s*\(.*\)$/, '');

/** How a record is named: its label field, else its id. */
export function recordName(meta, record) {
  const label = meta.recordLabel ? record[meta.recordLabel] : null;
  return label === null || label === undefined || label === '' ? `#${record.id}` : `${label} (#${record.id})`;
}

/** A served value as text for a table cell or a read-only field. */
export function shown(value, type) {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === 'number' ? `#${v}` : String(v))).join(', ') : '—';
  if (type === 'datetime' || ['created', 'modified'].includes(type)) return new Date(value).toLocaleString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Shows a message to the user (role=alert), or hides it when `text` is empty. */
export function say(text) {
  $('#message').textContent = text;
  $('#message').hidden = !text;
}
