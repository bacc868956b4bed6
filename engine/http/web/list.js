// A resource's list: the declared columns, the declared filters as controls, search, sorting by
// column, paging and the row count on request. The list's state is the hash's query string, so
// a filtered page can be bookmarked and Back goes to the previous one.
import { api, errorText } from './api.js';
import { h, recordName, shortTitle, shown } from './dom.js';
import { picker } from './picker.js';

const LIMITS = ['25', '50', '100'];
const PAGING = ['limit', 'offset', 'ordering', 'count'];

/** The control of one filter, named by its parameter. */
function filterControl(meta, filter, value, app) {
  const field = meta.fields.find((f) => f.name === filter.key);
  const id = `filter-${filter.param}`;
  const label = h('label', { for: id }, filter.label);
  const type = field.spec?.type;
  let control;
  if (field.kind !== 'field') {
    control = picker({ id, label: filter.label, target: app.meta.resources[field.target], value: value || null, many: false, empty: 'Any', canView: app.can(field.target, 'view') }).element;
  } else if (type === 'enum' || type === 'state') {
    control = h('select', { id, name: filter.param }, h('option', { value: '' }, 'Any'), field.spec.values.map((v) => h('option', { value: v, selected: v === value }, v)));
  } else if (type === 'boolean') {
    control = h('select', { id, name: filter.param }, [['', 'Any'], ['true', 'Yes'], ['false', 'No']].map(([v, t]) => h('option', { value: v, selected: v === (value ?? '') }, t)));
  } else {
    const input = { date: 'date', datetime: 'date', integer: 'number', decimal: 'number' }[type] ?? 'text';
    control = h('input', { id, name: filter.param, type: input, step: type === 'decimal' ? 'any' : undefined, value: value || undefined });
  }
  // a picker's select carries the id; give it the parameter's name too
  control.querySelector?.('select')?.setAttribute('name', filter.param);
  return h('div', { class: 'filter' }, label, control);
}

function filterForm(meta, query, app) {
  const search = meta.search.length
    ? h('div', { class: 'filter search' }, h('label', { for: 'filter-search' }, `Search (${meta.search.join(', ')})`), h('input', { id: 'filter-search', name: 'search', type: 'search', value: query.get('search') ?? undefined }))
    : null;
  const form = h(
    'form',
    { id: 'filters', role: 'search', 'aria-label': `Filter ${shortTitle(meta).toLowerCase()} records` },
    search,
    meta.filters.map((f) => filterControl(meta, f, query.get(f.param), app)),
    h('div', { class: 'filter' }, h('label', {}, h('input', { type: 'checkbox', name: 'count', value: 'true', checked: query.get('count') === 'true' }), ' Count the rows')),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply'), h('a', { href: `#/r/${meta.key}` }, 'Reset')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (value !== '') next.set(name, String(value));
    for (const name of ['ordering', 'limit']) if (query.has(name)) next.set(name, query.get(name));
    app.go(`#/r/${meta.key}?${next}`);
  });
  return form;
}

/** A column header; orderable ones are buttons that sort by the column, then the other way. */
function header(meta, column, query, app) {
  const field = meta.fields.find((f) => f.name === column);
  const label = field?.label ?? column.charAt(0).toUpperCase() + column.slice(1);
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
  if (field?.kind === 'fk' && value !== null && app.can(field.target, 'view')) return h('td', {}, h('a', { href: `#/r/${field.target}/${value}` }, `#${value}`));
  return h('td', {}, shown(value, field?.spec?.type ?? column));
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
  const sizes = h('select', { id: 'page-size', 'aria-label': 'Rows per page' }, LIMITS.map((l) => h('option', { value: l, selected: Number(l) === limit }, `${l} per page`)));
  sizes.addEventListener('change', () => {
    const next = new URLSearchParams(query);
    next.set('limit', sizes.value);
    next.delete('offset');
    app.go(`#/r/${meta.key}?${next}`);
  });
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('span', { id: 'rows' }, count ? `Rows ${offset + 1}–${offset + count}` : 'No rows', total !== null ? ` of ${total}` : ''),
    offset > 0 ? h('a', { href: at(Math.max(0, offset - limit)), rel: 'prev' }, 'Previous') : null,
    link.includes('rel="next"') ? h('a', { href: at(offset + limit), rel: 'next' }, 'Next') : null,
    sizes,
  );
}

export async function listScreen(meta, query, app) {
  if (!query.has('limit')) query.set('limit', LIMITS[0]);
  const params = new URLSearchParams([...query].filter(([name, value]) => value !== '' && (PAGING.includes(name) || name === 'search' || meta.filters.some((f) => f.param === name))));
  const res = await api('GET', `${meta.path}?${params}`);
  const heading = [
    h('h1', { tabindex: -1 }, shortTitle(meta)),
    h('p', { class: 'description' }, meta.description),
    app.can(meta.key, 'add') ? h('p', {}, h('a', { id: 'new-record', class: 'button', href: `#/r/${meta.key}/new` }, `New ${shortTitle(meta).toLowerCase()}`)) : null,
    filterForm(meta, query, app),
  ];
  if (res.status !== 200) return [...heading, h('p', { class: 'error', role: 'alert' }, errorText(res.data))];
  const table = h(
    'table',
    { id: 'records' },
    h('caption', { class: 'visually-hidden' }, `${shortTitle(meta)} records`),
    h('thead', {}, h('tr', {}, meta.listColumns.map((c) => header(meta, c, query, app)))),
    h('tbody', {}, res.data.map((record) => h('tr', { 'data-id': record.id, 'aria-label': recordName(meta, record) }, meta.listColumns.map((c) => cell(meta, c, record, app))))),
  );
  return [...heading, h('div', { class: 'table-wrap' }, table), pager(meta, query, res, res.data.length, app)];
}
