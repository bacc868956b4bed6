// A resource's list: the declared columns (relations named by their records, fetched in the same
// request through `expand`), the declared filters as controls, search, sorting by column, paging
// and the row count on request. The list's state is the hash's query string, so a filtered page
// can be bookmarked and Back goes to the previous one.
import { api, errorText } from './api.js';
import { importDialog } from './import.js';
import { choiceText, h, labelOf, recordLabel, shortTitle, shown, titleInSentence, valueShown } from './dom.js';
import { t } from './i18n.js';
import { picker } from './picker.js';

const LIMITS = ['25', '50', '100'];
const PAGING = ['limit', 'offset', 'ordering', 'count'];
/** What a bound's control adds to the field's label. */
const LOOKUP_SUFFIX = { icontains: 'contains', gte: 'fromBound', lte: 'toBound' };
/** Below this width the filters start folded away, so the results come first. */
const NARROW = '(max-width: 700px)';

/** A column's header text: the field's label, or the record column's name. */
export function columnLabel(meta, column) {
  const field = meta.fields.find((f) => f.name === column);
  if (field) return labelOf(field);
  return { created: t('created'), modified: t('modified') }[column] ?? column.charAt(0).toUpperCase() + column.slice(1);
}

/** The control of one filter, named by its parameter. */
function filterControl(meta, filter, value, app) {
  const field = meta.fields.find((f) => f.name === filter.key);
  const id = `filter-${filter.param}`;
  const text = `${labelOf(field)}${LOOKUP_SUFFIX[filter.lookup] ? ` ${t(LOOKUP_SUFFIX[filter.lookup])}` : ''}`;
  const label = h('label', { for: id }, text);
  const type = field.spec?.type;
  let control;
  if (field.kind !== 'field') {
    control = picker({ id, label: text, target: app.meta.resources[field.target], value: value || null, many: false, empty: t('any'), canView: app.can(field.target, 'view') }).element;
  } else if (field.choices) {
    control = h('select', { id, name: filter.param }, h('option', { value: '' }, t('any')), field.choices.map((c) => h('option', { value: c.value, selected: c.value === value }, choiceText(field, c.value))));
  } else if (type === 'boolean') {
    control = h('select', { id, name: filter.param }, [['', t('any')], ['true', t('yes')], ['false', t('no')]].map(([v, label]) => h('option', { value: v, selected: v === (value ?? '') }, label)));
  } else {
    const input = { date: 'date', datetime: 'date', integer: 'number', decimal: 'number' }[type] ?? 'text';
    control = h('input', { id, name: filter.param, type: input, step: type === 'decimal' ? 'any' : undefined, value: value || undefined });
  }
  // a picker's select carries the id; give it the parameter's name too
  control.querySelector?.('select')?.setAttribute('name', filter.param);
  return h('div', { class: 'filter' }, label, control);
}

function filterForm(meta, query, app) {
  const searchLabels = meta.search.map((s) => labelOf(meta.fields.find((f) => f.label === s) ?? { labels: { en: s } }));
  const search = meta.search.length
    ? h('div', { class: 'filter search' }, h('label', { for: 'filter-search' }, t('search', { fields: searchLabels.join(', ') })), h('input', { id: 'filter-search', name: 'search', type: 'search', value: query.get('search') ?? undefined }))
    : null;
  const form = h(
    'form',
    { id: 'filters', role: 'search', 'aria-label': t('filterRecords', { title: shortTitle(meta) }) },
    search,
    meta.filters.map((f) => filterControl(meta, f, query.get(f.param), app)),
    h('div', { class: 'filter' }, h('label', {}, h('input', { type: 'checkbox', name: 'count', value: 'true', checked: query.get('count') === 'true' }), ` ${t('countRows')}`)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('apply')), h('a', { href: `#/r/${meta.key}` }, t('reset'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (value !== '') next.set(name, String(value));
    for (const name of ['ordering', 'limit']) if (query.has(name)) next.set(name, query.get(name));
    app.go(`#/r/${meta.key}?${next}`);
  });
  const active = meta.filters.filter((f) => query.get(f.param)).length + (query.get('search') ? 1 : 0);
  const open = active > 0 || !window.matchMedia(NARROW).matches;
  return h('details', { class: 'filter-panel', open }, h('summary', {}, t('filters'), active ? ` (${active})` : ''), form);
}

/** A column header; orderable ones are buttons that sort by the column, then the other way. */
function header(meta, column, query, app) {
  const label = columnLabel(meta, column);
  if (!meta.orderable.includes(column)) return h('th', { scope: 'col' }, label);
  const ordering = query.get('ordering');
  const sort = ordering === column ? 'ascending' : ordering === `-${column}` ? 'descending' : undefined;
  const next = new URLSearchParams(query);
  next.set('ordering', sort === 'ascending' ? `-${column}` : column);
  next.delete('offset');
  return h('th', { scope: 'col', 'aria-sort': sort }, h('button', { type: 'button', class: 'sort', onclick: () => app.go(`#/r/${meta.key}?${next}`) }, label, sort ? (sort === 'ascending' ? ' ▲' : ' ▼') : ''));
}

function cell(meta, column, record, app) {
  const field = meta.fields.find((f) => f.name === column);
  const value = record[column];
  if (column === (meta.recordLabel ?? 'id')) return h('td', {}, h('a', { href: `#/r/${meta.key}/${record.id}` }, meta.recordLabel ? shown(value) : `#${value}`));
  return h('td', {}, field ? valueShown(field, value, app) : shown(value, column));
}

function pager(meta, query, res, count, app) {
  const limit = Number(query.get('limit'));
  const offset = Number(query.get('offset') ?? 0);
  const at = (o) => {
    const next = new URLSearchParams(query);
    if (o > 0) next.set('offset', String(o));
    else next.delete('offset');
    return `#/r/${meta.key}?${next}`;
  };
  const link = res.headers.get('Link') ?? '';
  const total = res.headers.get('X-Total-Count');
  const sizes = h('select', { id: 'page-size', 'aria-label': t('rowsPerPage') }, LIMITS.map((l) => h('option', { value: l, selected: Number(l) === limit }, t('perPage', { n: l }))));
  sizes.addEventListener('change', () => {
    const next = new URLSearchParams(query);
    next.set('limit', sizes.value);
    next.delete('offset');
    app.go(`#/r/${meta.key}?${next}`);
  });
  return h(
    'nav',
    { class: 'pager', 'aria-label': t('pages') },
    h('span', { id: 'rows' }, count ? t('rows', { from: offset + 1, to: offset + count }) : t('noRows'), total !== null ? t('of', { total }) : ''),
    offset > 0 ? h('a', { href: at(Math.max(0, offset - limit)), rel: 'prev' }, t('previous')) : null,
    link.includes('rel="next"') ? h('a', { href: at(offset + limit), rel: 'next' }, t('next')) : null,
    sizes,
  );
}

/** `expand=` naming the relations among `columns`, so one request brings their records' names. */
export function expandOf(meta, columns) {
  return meta.fields.filter((f) => f.kind !== 'field' && columns.includes(f.name)).map((f) => f.name).join(',');
}

/** A table of records: `columns` of `records`, each row named by its record. */
export function recordsTable(meta, columns, records, app, { id, caption, headerOf = (c) => h('th', { scope: 'col' }, columnLabel(meta, c)) }) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map(headerOf))),
      h('tbody', {}, records.map((record) => h('tr', { 'data-id': record.id, 'aria-label': recordLabel(meta, record) }, columns.map((c) => cell(meta, c, record, app))))),
    ),
  );
}

/** How many of the listed records are in each state, above the list (the API's aggregate, with the same filters). */
function stateCounts(field, res) {
  if (res?.status !== 200) return null;
  return h(
    'ul',
    { id: 'state-counts', class: 'state-counts', 'aria-label': t('countsBy', { field: labelOf(field) }) },
    res.data.map((g) => h('li', {}, choiceText(field, g.group[field.name]), ' ', h('strong', {}, String(g.count)))),
  );
}

/**
 * Links to the list as CSV and XLSX files: its filters, search and ordering, every page. The CSV
 * is for a spreadsheet: a byte order mark so it reads UTF-8, formulas escaped.
 */
function exportLinks(meta, filtered) {
  const link = (format) => {
    const params = new URLSearchParams(filtered);
    params.set('format', format);
    if (format === 'csv') for (const name of ['bom', 'escape_formulas']) params.set(name, 'true');
    return h('a', { class: 'button', href: `${meta.path}?${params}`, download: '' }, t('exportAs', { format: format.toUpperCase() }));
  };
  return h('div', { class: 'exports', role: 'group', 'aria-label': t('export') }, link('csv'), link('xlsx'));
}

export async function listScreen(meta, query, app) {
  if (!query.has('limit')) query.set('limit', LIMITS[0]);
  const params = new URLSearchParams([...query].filter(([name, value]) => value !== '' && (PAGING.includes(name) || name === 'search' || meta.filters.some((f) => f.param === name))));
  const filtered = new URLSearchParams([...params].filter(([name]) => !PAGING.includes(name) || name === 'ordering'));
  const expand = expandOf(meta, meta.listColumns);
  if (expand) params.set('expand', expand);
  const state = meta.fields.find((f) => f.spec?.type === 'state');
  const grouped = new URLSearchParams([...filtered].filter(([name]) => name !== 'ordering'));
  if (state) grouped.set('group_by', state.name);
  const [res, counts] = await Promise.all([api('GET', `${meta.path}?${params}`), state ? api('GET', `${meta.path}/aggregate?${grouped}`) : undefined]);
  const heading = [
    h('div', { class: 'heading' }, h('h1', { tabindex: -1 }, shortTitle(meta)), app.can(meta.key, 'add') ? h('a', { id: 'new-record', class: 'button', href: `#/r/${meta.key}/new` }, t('newRecord', { title: titleInSentence(meta) })) : null),
    h('p', { class: 'description' }, meta.description),
    importDialog(meta, (action) => app.can(meta.key, action)),
  ];
  // on a wide screen the filters are a column beside the results, so they never push them down
  const layout = (...results) => h('div', { class: 'list-layout' }, filterForm(meta, query, app), h('div', { class: 'list-results' }, results));
  if (res.status !== 200) return [...heading, layout(h('p', { class: 'error', role: 'alert' }, errorText(res.data)))];
  const table = recordsTable(meta, meta.listColumns, res.data, app, { id: 'records', caption: t('records', { title: shortTitle(meta) }), headerOf: (c) => header(meta, c, query, app) });
  return [...heading, layout(state ? stateCounts(state, counts) : null, table, pager(meta, query, res, res.data.length, app), exportLinks(meta, filtered))];
}
