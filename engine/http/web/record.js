// A record's screen (and the create screen): the form built from the declaration, server
// validation errors beside their fields, state moves as buttons with the transition history, and
// delete after a confirmation. Actions the user's permissions do not allow are not offered.
import { api, errorText } from './api.js';
import { h, recordName, say, shortTitle, shown } from './dom.js';
import { EMPTY, fieldControl } from './fields.js';

const RECORD_COLUMNS = ['id', 'created', 'modified', 'created_by'];

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
      parts.push(h('div', { class: 'field readonly' }, h('span', { class: 'label' }, field.label), h('span', { 'data-value': field.name }, shown(record[field.name], field.spec?.type))));
    }
  }
  return { controls, parts };
}

/** A value as compared with the served one: id lists in order, as the API serves them. */
const comparable = (value) => JSON.stringify(Array.isArray(value) ? [...value].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : (value ?? null));

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
  say(elsewhere.length ? elsewhere.join(' ') : 'Please correct the errors below.');
  first?.focus();
}

function recordForm(meta, record, app, creating) {
  const editable = creating ? app.can(meta.key, 'add') : app.can(meta.key, 'change');
  const { controls, parts } = buildForm(meta, record, app, creating, editable);
  const form = h('form', { id: 'record-form', novalidate: true }, ...parts, editable ? h('div', { class: 'actions' }, h('button', { type: 'submit' }, creating ? 'Create' : 'Save')) : null);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const res = creating ? await api('POST', meta.path, bodyOf(controls, null)) : await api('PATCH', `${meta.path}/${record.id}`, bodyOf(controls, record));
    if (res.status === 201) return app.go(`#/r/${meta.key}/${res.data.id}`, `${shortTitle(meta)} created.`);
    if (res.status === 200) return app.go(`#/r/${meta.key}/${record.id}`, 'Saved.');
    showErrors(controls, res);
  });
  return form;
}

export function createScreen(meta, app) {
  return [h('h1', { tabindex: -1 }, `New ${shortTitle(meta).toLowerCase()}`), h('p', { class: 'description' }, meta.description), recordForm(meta, null, app, true)];
}

/** Per state field: the current state, a button per move the declaration allows, and the history. */
function statesOf(meta, record, history, app) {
  const mayChange = app.can(meta.key, 'change');
  return meta.fields
    .filter((f) => f.spec?.type === 'state')
    .map((field) => {
      const current = record[field.name];
      const moves = mayChange ? (field.spec.transitions[current] ?? []) : [];
      const move = async (to) => {
        const res = await api('PATCH', `${meta.path}/${record.id}`, { [field.name]: to });
        if (res.status === 200) return app.go(`#/r/${meta.key}/${record.id}`, `${field.label}: ${to}.`);
        say(errorText(res.data));
      };
      const rows = history.filter((c) => c.field === field.name);
      return h(
        'section',
        { class: 'states', 'aria-labelledby': `state-${field.name}` },
        h('h2', { id: `state-${field.name}` }, field.label),
        h('p', {}, 'Now: ', h('strong', { class: 'state', 'data-state': field.name }, current)),
        moves.length ? h('div', { class: 'actions' }, moves.map((to) => h('button', { type: 'button', class: 'move', 'data-to': to, onclick: () => move(to) }, `Move to ${to}`))) : null,
        h(
          'table',
          { class: 'history' },
          h('caption', {}, 'History'),
          h('thead', {}, h('tr', {}, ['From', 'To', 'By (user id)', 'When'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, rows.map((c) => h('tr', {}, h('td', {}, c.from ?? '—'), h('td', {}, c.to), h('td', {}, shown(c.changed_by)), h('td', {}, shown(c.changed_at, 'datetime'))))),
        ),
      );
    });
}

async function remove(meta, record, app) {
  if (!confirm(`Delete ${shortTitle(meta).toLowerCase()} ${recordName(meta, record)}? This cannot be undone.`)) return;
  const res = await api('DELETE', `${meta.path}/${record.id}`);
  if (res.status === 204) return app.go(`#/r/${meta.key}`, `${shortTitle(meta)} ${recordName(meta, record)} deleted.`);
  say(errorText(res.data));
}

export async function recordScreen(meta, id, app) {
  const res = await api('GET', `${meta.path}/${id}`);
  if (res.status !== 200) return [h('h1', { tabindex: -1 }, shortTitle(meta)), h('p', { class: 'error' }, errorText(res.data))];
  const record = res.data;
  const hasStates = meta.fields.some((f) => f.spec?.type === 'state');
  const history = hasStates ? ((await api('GET', `${meta.path}/${id}/transitions`)).data ?? []) : [];
  return [
    h('h1', { tabindex: -1 }, `${shortTitle(meta)} ${recordName(meta, record)}`),
    h('p', { class: 'record-columns' }, RECORD_COLUMNS.map((c) => h('span', {}, `${c.replace('_', ' ')}: ${shown(record[c], c)}`))),
    ...statesOf(meta, record, history, app),
    recordForm(meta, record, app, false),
    app.can(meta.key, 'delete') ? h('div', { class: 'actions danger' }, h('button', { type: 'button', id: 'delete', onclick: () => remove(meta, record, app) }, 'Delete')) : null,
  ];
}
