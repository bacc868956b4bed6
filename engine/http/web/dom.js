// Building the page: elements from tag, attributes and children; no HTML strings, so no injection.
// And how records and values are named on it.
import { inLang, lang, t } from './i18n.js';

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

/** A resource's name in headings: "Issue (Meldung)" → "Issue" in English, its German title in German. */
export const shortTitle = (meta) => (lang === 'de' ? meta.titles.de : meta.title.replace(/\s*\(.*\)$/, ''));

/** A resource's name inside a sentence: "issue" in English (nouns keep their capital in German). */
export const titleInSentence = (meta) => (lang === 'de' ? shortTitle(meta) : shortTitle(meta).toLowerCase());

/** A resource's name in the navigation: its title as declared, or its German title. */
export const navTitle = (meta) => (lang === 'de' ? meta.titles.de : meta.title);

/** A field's label in the chosen language. */
export const labelOf = (field) => inLang(field.labels);

/** How a record is named in a sentence: its label field and its id. */
export function recordName(meta, record) {
  const label = meta.recordLabel ? record[meta.recordLabel] : null;
  return label === null || label === undefined || label === '' ? `#${record.id}` : `${label} (#${record.id})`;
}

/** How a record is named in a list or a link: its label field, else its id. */
export function recordLabel(meta, record) {
  const label = meta.recordLabel ? record[meta.recordLabel] : null;
  return label === null || label === undefined || label === '' ? `#${record.id}` : String(label);
}

/**
 * A related record as served with `expand` (the record, or its bare id when the reader cannot see
 * it): a link named by its label where the user may open it, else its name as text.
 */
export function relatedLink(target, value, canView) {
  if (value === null || value === undefined) return '—';
  const record = typeof value === 'object' ? value : { id: value };
  const name = typeof value === 'object' ? recordLabel(target, record) : `#${value}`;
  // the id on hover, where the name hides it
  return canView ? h('a', { href: `#/r/${target.key}/${record.id}`, title: `#${record.id}` }, name) : h('span', { title: `#${record.id}` }, name);
}

/** An enum or state value by its declared name, the raw value on hover (and for tests, in `data-raw`). */
export function choiceShown(field, value) {
  if (value === null || value === undefined || value === '') return '—';
  const choice = field.choices?.find((c) => c.value === value);
  return h('span', { class: 'choice', title: value, 'data-raw': value }, choice ? inLang(choice.labels) : String(value));
}

/** A choice's name as text (for buttons and messages). */
export const choiceText = (field, value) => {
  const choice = field.choices?.find((c) => c.value === value);
  return choice ? inLang(choice.labels) : String(value);
};

/** A served value as text for a table cell or a read-only field. */
export function shown(value, type) {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? t('yes') : t('no');
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === 'number' ? `#${v}` : String(v))).join(', ') : '—';
  if (type === 'datetime' || ['created', 'modified'].includes(type)) return new Date(value).toLocaleString(lang);
  if (type === 'date') return new Date(`${value}T00:00:00`).toLocaleDateString(lang);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A field's value as shown on a record or in a list cell: names for relations and choices. */
export function valueShown(field, value, app) {
  if (!field) return shown(value);
  if (field.kind === 'fk') return relatedLink(app.meta.resources[field.target], value, app.can(field.target, 'view'));
  if (field.kind === 'm2m') {
    const target = app.meta.resources[field.target];
    if (!value?.length) return '—';
    return h('span', { class: 'links' }, value.flatMap((v, i) => [i ? ', ' : null, relatedLink(target, v, app.can(field.target, 'view'))]));
  }
  if (field.choices) return choiceShown(field, value);
  // a file's metadata by its name; the files panel (files.js) downloads and uploads
  if (field.spec?.type === 'file') return value ? value.name : '—';
  if (field.spec?.type === 'attachments') return value?.length ? value.map((a) => a.name).join(', ') : '—';
  return shown(value, field.spec?.type);
}

/**
 * Shows a message where the user is looking (the bar sticks to the top of the viewport): `kind`
 * 'success' (announced politely) or 'error' (announced at once), each in its own style.
 * `details` are elements under the text (e.g. the records a refused delete is held by). An empty
 * `text` hides it.
 */
export function say(text, kind = 'error', details = []) {
  const message = $('#message');
  message.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  message.className = kind;
  message.textContent = text;
  message.hidden = !text;
  $('#message-details').replaceChildren(...details);
  $('#message-details').hidden = !text || !details.length;
  $('#messages').hidden = !text;
  if (text) $('#messages').scrollIntoView({ block: 'nearest' });
}
