// A searchable picker of records of another resource, for foreign keys (one) and many-to-many
// links (several): a search box that asks the target's list, and a select of what it found, each
// named by its record label. The chosen records stay among the options whatever the search finds.
// Without the permission to view the target, ids are typed instead.
import { api } from './api.js';
import { h, recordName } from './dom.js';
import { t } from './i18n.js';

const PAGE = 20;
const PAUSE_MS = 250;

/** Names of the chosen records not served with the record (`expand`): a filter's value, say. */
async function namesOf(target, ids) {
  const answers = await Promise.all(ids.map((id) => api('GET', `${target.path}/${id}`)));
  return answers.map((res, i) => ({ id: ids[i], name: res.status === 200 ? recordName(target, res.data) : `#${ids[i]}` }));
}

async function find(target, text) {
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (text && target.search.length) params.set('search', text);
  const res = await api('GET', `${target.path}?${params}`);
  return res.status === 200 ? res.data.map((r) => ({ id: r.id, name: recordName(target, r) })) : [];
}

/** Ids and the records already known of `value`: an id, ids, or records served with `expand`. */
function chosenOf(value, many) {
  const values = many ? (value ?? []) : value === null || value === undefined || value === '' ? [] : [value];
  const records = values.filter((v) => typeof v === 'object');
  return { ids: values.map((v) => (typeof v === 'object' ? v.id : Number(v))), records };
}

/**
 * `{ element, read }`: `read()` gives the chosen id (or null), or the ids when `many`.
 * `empty` labels the no-choice option of a single picker (none when a choice is required).
 */
export function picker({ id, label, target, value, many, empty, canView }) {
  const { ids: chosen, records } = chosenOf(value, many);
  if (!canView) {
    const input = h('input', { id, name: id, inputmode: 'numeric', value: chosen.join(', '), placeholder: many ? t('idsHint') : 'id' });
    const ids = () => input.value.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
    return { element: h('div', { class: 'picker' }, input), read: () => (many ? ids() : (ids()[0] ?? null)) };
  }
  const select = h('select', { id, name: id, multiple: many, size: many ? 6 : undefined });
  const search = h('input', { type: 'search', class: 'picker-search', placeholder: t('searchIn', { label }), 'aria-label': t('searchLabel', { label }), 'aria-controls': id });
  const names = new Map(records.map((r) => [r.id, recordName(target, r)]));

  const fill = (found) => {
    const selected = new Set([...select.selectedOptions].map((o) => Number(o.value)).filter(Boolean));
    if (!select.options.length) for (const c of chosen) selected.add(c);
    for (const r of found) names.set(r.id, r.name);
    const options = [...selected].map((i) => ({ id: i, name: names.get(i) ?? `#${i}` }));
    for (const r of found) if (!selected.has(r.id)) options.push(r);
    select.replaceChildren(
      ...(many || empty === undefined ? [] : [h('option', { value: '' }, empty)]),
      ...options.map((r) => h('option', { value: r.id, selected: selected.has(r.id) }, r.name)),
    );
  };

  let pending;
  search.addEventListener('input', () => {
    clearTimeout(pending);
    pending = setTimeout(async () => fill(await find(target, search.value.trim())), PAUSE_MS);
  });
  // chosen at once, named where the record came with them (a form sent before the rest arrive keeps them), then the first page of the target
  const unnamed = chosen.filter((c) => !names.has(c));
  fill([]);
  void (async () => {
    for (const r of await namesOf(target, unnamed)) names.set(r.id, r.name);
    fill(await find(target, ''));
  })();

  const read = () => {
    const ids = [...select.selectedOptions].map((o) => o.value).filter(Boolean).map(Number);
    return many ? ids : (ids[0] ?? null);
  };
  // a target without searchable fields offers its first page only
  return { element: h('div', { class: 'picker' }, target.search.length ? search : null, select), read };
}
