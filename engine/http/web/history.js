// A record's history tab (GET {resource}/{id}/history, asked when the tab is first shown): its
// versions, newest first, with who wrote each and when; the differences between a version and the
// one before it (or any two) field by field, relations named by their records and choices by their
// names as elsewhere in the app, the raw value on hover; and a button that writes a version back
// (POST …/history/{version}/restore, checked as a PATCH is; the restore is a new version).
import { api, errorText } from './api.js';
import { h, labelOf, say, valueShown } from './dom.js';
import { lang, t } from './i18n.js';
import { recordsById, USER_RESOURCE, userShown } from './names.js';
import { recordHash, registerTab } from './record-panels.js';

/** The key a version's `values` gives a field under: its column (its name), `x_id`, `x_ids`. */
const valueKey = (field) => (field.kind === 'field' ? field.name : field.writeName);

const when = (version) => new Date(version.at).toLocaleString(lang);

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Resource key → id → record, for the users who wrote the versions and every record their
 * relations name: those served with the record (`expand`), the others looked up once each.
 */
async function namedRecords(meta, record, versions, app) {
  const byTarget = new Map([[USER_RESOURCE, { ids: versions.map((v) => v.user), known: [] }]]);
  for (const field of meta.fields.filter((f) => f.kind !== 'field')) {
    const wanted = byTarget.get(field.target) ?? { ids: [], known: [] };
    wanted.known.push(...[record[field.name]].flat().filter((v) => v !== null && typeof v === 'object'));
    wanted.ids.push(...versions.flatMap((v) => [v.values[valueKey(field)]].flat()));
    byTarget.set(field.target, wanted);
  }
  return new Map(await Promise.all([...byTarget].map(async ([key, { ids, known }]) => [key, await recordsById(app, key, ids, known)])));
}

/** A version's value of `field` as valueShown takes it: related ids as their records where known. */
function valueOf(field, version, named) {
  const value = version.values[valueKey(field)];
  if (field.kind === 'field' || value === null || value === undefined) return value;
  const records = named.get(field.target);
  const record = (id) => records.get(id) ?? id;
  return Array.isArray(value) ? value.map(record) : record(value);
}

/** The fields whose values differ between `older` and `newer`, as a table; the fields the user may see only. */
function differences(meta, older, newer, named, app) {
  const changed = meta.fields.filter((f) => valueKey(f) in older.values || valueKey(f) in newer.values).filter((f) => !same(older.values[valueKey(f)], newer.values[valueKey(f)]));
  if (!changed.length) return h('p', { class: 'no-differences' }, t('noDifferences'));
  const cell = (field, version) => h('td', {}, valueShown(field, valueOf(field, version, named), app));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'diff' },
      h('caption', {}, t('differences', { older: when(older), newer: when(newer) })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('field')), h('th', { scope: 'col' }, t('olderVersion')), h('th', { scope: 'col' }, t('newerVersion')))),
      h('tbody', {}, changed.map((f) => h('tr', { 'data-field': f.name }, h('th', { scope: 'row' }, labelOf(f)), cell(f, older), cell(f, newer)))),
    ),
  );
}

/** Two choosers (older, newer) and their differences, redrawn on every choice. */
function comparison(meta, versions, named, app) {
  const options = (selected) => versions.map((v, i) => h('option', { value: String(i), selected: i === selected }, `${when(v)}${i === 0 ? ` (${t('current')})` : ''}`));
  const older = h('select', { id: 'compare-older' }, options(Math.min(1, versions.length - 1)));
  const newer = h('select', { id: 'compare-newer' }, options(0));
  const shown = h('div', { class: 'diff-view', 'aria-live': 'polite' });
  const draw = () => shown.replaceChildren(differences(meta, versions[Number(older.value)], versions[Number(newer.value)], named, app));
  older.addEventListener('change', draw);
  newer.addEventListener('change', draw);
  draw();
  const section = h(
    'div',
    { class: 'compare' },
    h('div', { class: 'filters' }, h('div', { class: 'filter' }, h('label', { for: 'compare-older' }, t('olderVersion')), older), h('div', { class: 'filter' }, h('label', { for: 'compare-newer' }, t('newerVersion')), newer)),
    shown,
  );
  /** Shows version `i` against the one before it. */
  section.choose = (i) => {
    newer.value = String(i);
    older.value = String(Math.min(i + 1, versions.length - 1));
    draw();
    shown.scrollIntoView({ block: 'nearest' });
  };
  return section;
}

async function restore(meta, record, version, app) {
  if (!confirm(t('restoreVersionAsk', { when: when(version) }))) return;
  const res = await api('POST', `${meta.path}/${record.id}/history/${version.version}/restore`, {});
  if (res.status === 200) return app.go(recordHash(meta, record.id, 'history'), t('restoredVersion', { when: when(version) }));
  say(errorText(res.data));
}

async function versionsBody(meta, record, app) {
  const res = await api('GET', `${meta.path}/${record.id}/history`);
  if (res.status !== 200) return [h('p', { class: 'error' }, errorText(res.data))];
  const versions = res.data;
  if (!versions.length) return [h('p', {}, t('noVersions'))];
  const named = await namedRecords(meta, record, versions, app);
  const users = named.get(USER_RESOURCE);
  const mayRestore = app.can(meta.key, 'change');
  const compare = comparison(meta, versions, named, app);
  const row = (v, i) =>
    h(
      'tr',
      { 'data-version': v.version },
      h('td', {}, when(v)),
      h('td', {}, userShown(app, users, v.user)),
      h('td', {}, t(`action_${v.action}`)),
      h(
        'td',
        { class: 'row-actions' },
        i < versions.length - 1 ? h('button', { type: 'button', class: 'compare-version', onclick: () => compare.choose(i) }, t('showChanges')) : null,
        mayRestore && i > 0 ? h('button', { type: 'button', class: 'restore-version', onclick: () => restore(meta, record, v, app) }, t('restore')) : null,
      ),
    );
  return [
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'versions' },
        h('caption', { class: 'visually-hidden' }, t('versions')),
        h('thead', {}, h('tr', {}, [t('when'), t('by'), t('change')].map((text) => h('th', { scope: 'col' }, text)), h('td', {}))),
        h('tbody', {}, versions.map(row)),
      ),
    ),
    versions.length > 1 ? compare : null,
  ];
}

registerTab({ id: 'history', applies: () => true, label: () => t('history'), render: versionsBody });
