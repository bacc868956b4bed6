// The landing screen: how many records the user sees per module, resource and state (one request,
// /app/summary.json), the records assigned to them (one request per assigning key), and the latest
// changes from the audit trail where they may read it, named by their records.
import { api } from './api.js';
import { choiceText, h, navTitle, recordLabel, shortTitle } from './dom.js';
import { inLang, lang, t } from './i18n.js';
import { userShown, usersById } from './names.js';

const ASSIGNED_SHOWN = 5;
const CHANGES_SHOWN = 10;

function countsSection(app, summary) {
  const modules = app.meta.modules
    .map((m) => ({ ...m, resources: m.resources.filter((key) => summary[key]) }))
    .filter((m) => m.resources.length)
    .map((m) =>
      h(
        'section',
        { class: 'card', 'aria-labelledby': `module-${m.name}` },
        h('h3', { id: `module-${m.name}` }, inLang(m.labels)),
        h(
          'ul',
          { class: 'counts' },
          m.resources.map((key) => {
            const meta = app.meta.resources[key];
            const counts = summary[key];
            const state = meta.fields.find((f) => f.spec?.type === 'state');
            const filter = state && meta.filters.find((f) => f.key === state.name && f.lookup === 'exact');
            const states = state && counts.states
              ? h('ul', { class: 'states' }, state.choices.filter((c) => counts.states[c.value]).map((c) => {
                  const text = `${choiceText(state, c.value)} ${counts.states[c.value]}`;
                  return h('li', { 'data-state': c.value }, filter ? h('a', { href: `#/r/${key}?${filter.param}=${c.value}` }, text) : text);
                }))
              : null;
            return h('li', { 'data-resource': key }, h('a', { href: `#/r/${key}` }, navTitle(meta)), ' ', h('span', { class: 'count' }, String(counts.total)), states);
          }),
        ),
      ),
    );
  return h('section', { class: 'dashboard-counts', 'aria-labelledby': 'counts-title' }, h('h2', { id: 'counts-title' }, t('countsTitle')), h('div', { class: 'cards' }, modules));
}

async function assignedSection(app) {
  const me = app.user.id;
  const keys = Object.values(app.meta.resources).flatMap((meta) => (app.can(meta.key, 'view') ? meta.assignees.map((param) => ({ meta, param })) : []));
  const found = await Promise.all(
    keys.map(async ({ meta, param }) => {
      const res = await api('GET', `${meta.path}?${new URLSearchParams({ [param]: String(me), limit: String(ASSIGNED_SHOWN), count: 'true' })}`);
      return { meta, param, records: res.status === 200 ? res.data : [], total: Number(res.headers.get('X-Total-Count') ?? 0) };
    }),
  );
  const lists = found
    .filter((f) => f.records.length)
    .map(({ meta, param, records, total }) =>
      h(
        'li',
        { 'data-resource': meta.key },
        h('a', { href: `#/r/${meta.key}?${param}=${me}` }, `${shortTitle(meta)} (${total})`),
        h('ul', {}, records.map((r) => h('li', {}, h('a', { href: `#/r/${meta.key}/${r.id}` }, recordLabel(meta, r))))),
      ),
    );
  return h('section', { class: 'card assigned', 'aria-labelledby': 'assigned-title' }, h('h2', { id: 'assigned-title' }, t('assignedToMe')), lists.length ? h('ul', {}, lists) : h('p', {}, t('nothingAssigned')));
}

/** The records the entries name, each fetched once (at most CHANGES_SHOWN), where the user may view them. */
async function recordsOf(app, entries) {
  const wanted = new Map();
  for (const e of entries) if (e.action !== 'delete' && app.meta.resources[e.resource] && app.can(e.resource, 'view')) wanted.set(`${e.resource}/${e.record_id}`, e);
  const found = await Promise.all([...wanted.values()].map(async (e) => [`${e.resource}/${e.record_id}`, await api('GET', `${app.meta.resources[e.resource].path}/${e.record_id}`)]));
  return new Map(found.filter(([, res]) => res.status === 200).map(([key, res]) => [key, res.data]));
}

async function changesSection(app) {
  const res = await api('GET', `${app.meta.tables.audit.path}?limit=${CHANGES_SHOWN}`);
  const entries = res.status === 200 ? res.data : [];
  const [records, users] = await Promise.all([recordsOf(app, entries), usersById(app, entries.map((e) => e.user))]);
  const row = (e) => {
    const meta = app.meta.resources[e.resource];
    const record = records.get(`${e.resource}/${e.record_id}`);
    const name = record ? h('a', { href: `#/r/${e.resource}/${e.record_id}` }, recordLabel(meta, record)) : `#${e.record_id}`;
    return h('li', { 'data-action': e.action }, h('span', { class: 'when' }, new Date(e.at).toLocaleString(lang)), ' ', meta ? shortTitle(meta) : e.resource, ' ', name, ' ', t(`action_${e.action}`), e.user ? [' · ', userShown(app, users, e.user)] : '');
  };
  return h('section', { class: 'card changes', 'aria-labelledby': 'changes-title' }, h('h2', { id: 'changes-title' }, t('recentChanges')), entries.length ? h('ul', {}, entries.map(row)) : h('p', {}, t('noChanges')));
}

export async function dashboardScreen(app) {
  const summary = await api('GET', '/app/summary.json');
  const [assigned, changes] = await Promise.all([assignedSection(app), app.mayRead('audit') ? changesSection(app) : null]);
  return [h('h1', { tabindex: -1 }, t('dashboard')), h('div', { class: 'dashboard-top' }, assigned, changes), countsSection(app, summary.status === 200 ? summary.data : {})];
}

