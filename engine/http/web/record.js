// A record's screen (and the create screen): the form built from the declaration, relations named
// by their records (one request, through `expand`), server validation errors beside their fields,
// state moves as buttons with the transition history, and the panels, actions and tabs registered
// in record-panels.js (related lists, delete, the history tab). The record and the other tabs are
// tabs of the screen; the hash's `?tab=` says which is shown. Actions the user's permissions do not allow are not offered.
import { api, errorText } from './api.js';
import { choiceShown, choiceText, h, labelOf, recordName, say, shortTitle, shown, titleInSentence, valueShown } from './dom.js';
import { EMPTY, fieldControl } from './fields.js';
import { lang, t } from './i18n.js';
import { expandOf } from './list.js';
import { userShown, usersById } from './names.js';
import { actionsOf, panelsOf, recordHash, registerAction, registerPanel, tabsOf } from './record-panels.js';
import { holdersOf } from './related.js';
import { tabView } from './tabs.js';
// registers the history tab
import './history.js';

/** The form's controls for the fields a user may send, and the read-only fields shown beside them. */
function buildForm(meta, record, app, creating, editable) {
  const controls = [];
  const parts = [];
  for (const field of meta.fields) {
    const isState = field.spec?.type === 'state';
    if (field.writable && !(isState && !creating) && (creating || editable)) {
      const control = fieldControl(field, record?.[field.name], { creating, resources: app.meta.resources, canView: (key) => app.can(key, 'view'), permissionNames: app.meta.permissionNames });
      controls.push({ field, ...control });
      parts.push(control.element);
    } else if (!creating && !isState) {
      parts.push(h('div', { class: 'field readonly' }, h('span', { class: 'label' }, labelOf(field)), h('span', { 'data-value': field.name }, valueShown(field, record[field.name], app))));
    }
  }
  return { controls, parts };
}

/** A value as compared with the served one: ids for related records, id lists in order. */
function comparable(value) {
  const id = (v) => (v !== null && typeof v === 'object' && 'id' in v ? v.id : v);
  const plain = Array.isArray(value) ? value.map(id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : id(value);
  return JSON.stringify(plain ?? null);
}

/**
 * The body to send: on create, what the controls hold (empty ones left out, so declared defaults
 * apply); on edit, only what differs from the record, so a field the user may not set (or
 * another user changed meanwhile) is not sent back unchanged.
 */
function bodyOf(controls, record) {
  const body = {};
  for (const { field, read } of controls) {
    const held = read();
    if (held === EMPTY && (!record || field.spec?.type === 'password')) continue;
    const value = held === EMPTY ? (field.nullable ? null : '') : held;
    if (!record || comparable(value) !== comparable(record[field.name])) body[field.writeName] = value;
  }
  return body;
}

/** Shows a 400's messages beside their fields; the rest (and other statuses) as the page's message. */
function showErrors(controls, res) {
  for (const c of controls) c.showError(null);
  if (res.status !== 400 || !res.data || typeof res.data.detail === 'string') return say(errorText(res.data));
  const elsewhere = [];
  let first;
  for (const [key, messages] of Object.entries(res.data)) {
    const control = controls.find((c) => c.field.writeName === key || c.field.name === key);
    if (!control) elsewhere.push(key === 'non_field_errors' ? messages.join(' ') : `${key}: ${[messages].flat().join(' ')}`);
    else {
      control.showError([messages].flat().map(String));
      first ??= control;
    }
  }
  say(elsewhere.length ? elsewhere.join(' ') : t('correctErrors'));
  first?.focus();
}

function recordForm(meta, record, app, creating) {
  const editable = creating ? app.can(meta.key, 'add') : app.can(meta.key, 'change');
  const { controls, parts } = buildForm(meta, record, app, creating, editable);
  const form = h('form', { id: 'record-form', novalidate: true, 'aria-label': creating ? t('newRecord', { title: titleInSentence(meta) }) : recordName(meta, record) }, ...parts, editable ? h('div', { class: 'actions' }, h('button', { type: 'submit' }, creating ? t('create') : t('save'))) : null);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const res = creating ? await api('POST', meta.path, bodyOf(controls, null)) : await api('PATCH', `${meta.path}/${record.id}`, bodyOf(controls, record));
    if (res.status === 201) return app.go(`#/r/${meta.key}/${res.data.id}`, t('createdMessage', { title: shortTitle(meta) }));
    if (res.status === 200) return app.go(`#/r/${meta.key}/${record.id}`, t('saved'));
    showErrors(controls, res);
  });
  return form;
}

export function createScreen(meta, app) {
  return [h('h1', { tabindex: -1 }, t('newRecord', { title: titleInSentence(meta) })), h('p', { class: 'description' }, meta.description), recordForm(meta, null, app, true)];
}

/** A state's name inside a sentence ("Move to pending"); German keeps its capitals. */
const stateInSentence = (field, value) => (lang === 'de' ? choiceText(field, value) : choiceText(field, value).toLowerCase());

/** Per state field: the current state, a button per move the declaration allows, and the history with who moved it. */
registerPanel({
  id: 'states',
  place: 'before',
  applies: (meta) => meta.fields.some((f) => f.spec?.type === 'state'),
  async render(meta, record, app) {
    const history = (await api('GET', `${meta.path}/${record.id}/transitions`)).data ?? [];
    const users = await usersById(app, history.map((c) => c.changed_by));
    const mayChange = app.can(meta.key, 'change');
    const sections = meta.fields
      .filter((f) => f.spec?.type === 'state')
      .map((field) => {
        const current = record[field.name];
        const moves = mayChange ? (field.spec.transitions[current] ?? []) : [];
        const move = async (to) => {
          const res = await api('PATCH', `${meta.path}/${record.id}`, { [field.name]: to });
          if (res.status === 200) return app.go(`#/r/${meta.key}/${record.id}`, t('moved', { field: labelOf(field), state: choiceText(field, to) }));
          say(errorText(res.data));
        };
        const rows = history.filter((c) => c.field === field.name);
        return h(
          'section',
          { class: 'states', 'aria-labelledby': `state-${field.name}` },
          h('h2', { id: `state-${field.name}` }, labelOf(field)),
          h('p', {}, t('now'), h('strong', { class: 'state', 'data-state': field.name, 'data-raw': current, title: current }, choiceText(field, current))),
          moves.length ? h('div', { class: 'actions' }, moves.map((to) => h('button', { type: 'button', class: 'move', 'data-to': to, onclick: () => move(to) }, t('moveTo', { state: stateInSentence(field, to) })))) : null,
          h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'history' },
              h('caption', {}, t('history')),
              h('thead', {}, h('tr', {}, [t('from'), t('to'), t('by'), t('when')].map((text) => h('th', { scope: 'col' }, text)))),
              h('tbody', {}, rows.map((c) => h('tr', {}, h('td', {}, choiceShown(field, c.from)), h('td', {}, choiceShown(field, c.to)), h('td', {}, userShown(app, users, c.changed_by)), h('td', {}, shown(c.changed_at, 'datetime'))))),
            ),
          ),
        );
      });
    return h('div', { class: 'state-panels' }, sections);
  },
});

registerAction({
  id: 'delete',
  danger: true,
  applies: (meta, record, app) => app.can(meta.key, 'delete'),
  label: () => t('delete'),
  async run(meta, record, app) {
    if (!confirm(t('deleteAsk', { title: titleInSentence(meta), name: recordName(meta, record) }))) return;
    const res = await api('DELETE', `${meta.path}/${record.id}`);
    if (res.status === 204) return app.go(`#/r/${meta.key}`, t('deleted', { title: shortTitle(meta), name: recordName(meta, record) }));
    say(errorText(res.data), 'error', res.status === 409 ? await holdersOf(meta, record, app) : []);
  },
});

/** id, when made and changed, and by whom, by name. */
async function recordFacts(record, app) {
  const users = await usersById(app, [record.created_by]);
  const fact = (label, value) => h('span', {}, `${label}: `, value);
  return h(
    'p',
    { class: 'record-columns' },
    fact('Id', `#${record.id}`),
    record.created !== undefined ? fact(t('created'), shown(record.created, 'created')) : null,
    record.modified !== undefined ? fact(t('modified'), shown(record.modified, 'modified')) : null,
    record.created_by !== undefined ? fact(t('createdBy'), userShown(app, users, record.created_by)) : null,
  );
}

/** The record tab: the panels before the form, the form, its actions, the panels after it. */
async function recordTab(meta, record, app) {
  const [before, after] = await Promise.all([panelsOf('before', meta, record, app), panelsOf('after', meta, record, app)]);
  const actions = actionsOf(meta, record, app);
  return [
    ...before,
    recordForm(meta, record, app, false),
    actions.length ? h('div', { class: 'actions record-actions' }, actions.map((a) => h('button', { type: 'button', id: a.id, class: a.danger ? 'danger' : undefined, onclick: () => a.run(meta, record, app) }, a.label(meta, record)))) : null,
    ...after,
  ];
}

export async function recordScreen(meta, id, app, query) {
  const expand = expandOf(meta, meta.fields.map((f) => f.name));
  const res = await api('GET', `${meta.path}/${id}${expand ? `?expand=${expand}` : ''}`);
  if (res.status !== 200) return [h('h1', { tabindex: -1 }, shortTitle(meta)), h('p', { class: 'error' }, errorText(res.data))];
  const record = res.data;
  const name = `${shortTitle(meta)} ${recordName(meta, record)}`;
  const tabs = [{ id: 'record', label: () => t('record'), render: recordTab }, ...tabsOf(meta, app)];
  const [facts, view] = await Promise.all([
    recordFacts(record, app),
    tabView({
      name,
      tabs: tabs.map((tab) => ({ id: tab.id, label: tab.label(), draw: () => tab.render(meta, record, app) })),
      chosen: query.get('tab'),
      // a tab is a view of the screen, not a new one: the URL says which without a new history entry or a redraw
      onChoose: (tab) => window.history.replaceState(window.history.state, '', recordHash(meta, record.id, tab)),
    }),
  ]);
  return [h('h1', { tabindex: -1 }, name), facts, view];
}
