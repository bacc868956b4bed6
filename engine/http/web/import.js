// The import dialog above a list: the templates, a CSV or XLSX file, the mode, a dry run whose
// errors are shown row by row, then the import (docs/imports.md). Texts in both languages here.
import { csrfToken } from './api.js';
import { h } from './dom.js';
import { inLang } from './i18n.js';

const say = (en, de) => inLang({ en, de });
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The file's media type, by its own type or its name. */
const typeOf = (file) => (/\.xlsx$/i.test(file.name) ? XLSX : 'text/csv');

async function send(meta, file, mode, dryRun) {
  const res = await fetch(`${meta.path}/import?mode=${mode}&key=${mode === 'create' ? 'id' : 'remote_key'}&dry_run=${dryRun}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': typeOf(file), 'X-CSRFToken': csrfToken() },
    body: file,
  });
  return { status: res.status, data: await res.json().catch(() => null) };
}

/** The answer: what was (or would be) done, the job of a background import, or every row's errors as a table. */
function outcome(res) {
  if (res.status === 200) {
    const { rows, created, updated, dry_run: dry } = res.data;
    return h('p', { role: 'status' }, dry ? say(`Valid: ${rows} rows (${created} to create, ${updated} to update).`, `Gültig: ${rows} Zeilen (${created} neu, ${updated} geändert).`) : say(`Imported ${rows} rows: ${created} created, ${updated} updated.`, `${rows} Zeilen importiert: ${created} neu, ${updated} geändert.`));
  }
  if (res.status === 202) return h('p', { role: 'status' }, say('The file is large: it is imported in the background. ', 'Die Datei ist gross: sie wird im Hintergrund importiert. '), h('a', { href: res.data.url }, say('Its progress', 'Fortschritt')));
  const errors = res.data?.errors;
  if (!Array.isArray(errors)) return h('p', { class: 'error', role: 'alert' }, res.data?.detail ?? Object.entries(res.data ?? {}).map(([k, v]) => `${k}: ${[v].flat().join(' ')}`).join('; '));
  return h(
    'div',
    { role: 'alert' },
    h('p', { class: 'error' }, res.data.detail),
    h(
      'table',
      { class: 'import-errors' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, say('Row', 'Zeile')), h('th', { scope: 'col' }, say('Column', 'Spalte')), h('th', { scope: 'col' }, say('Problem', 'Problem')))),
      h('tbody', {}, errors.map((e) => h('tr', {}, h('td', {}, String(e.row)), h('td', {}, e.field ?? ''), h('td', {}, e.messages.join(' '))))),
    ),
  );
}

/** The dialog, folded; `can(action)` says which modes the user may use. */
export function importDialog(meta, can) {
  const modes = [['create', say('Create records', 'Neue Datensätze')], ['update', say('Update by remote_key', 'Ändern per remote_key')], ['upsert', say('Update or create by remote_key', 'Ändern oder neu per remote_key')]].filter(([m]) =>
    m === 'create' ? can('add') : m === 'update' ? can('change') : can('add') && can('change'),
  );
  if (!modes.length) return null;
  const file = h('input', { type: 'file', id: 'import-file', accept: '.csv,.xlsx,text/csv,' + XLSX });
  const mode = h('select', { id: 'import-mode' }, modes.map(([value, label]) => h('option', { value }, label)));
  const result = h('div', { id: 'import-result', 'aria-live': 'polite' });
  const run = (dryRun) => async (event) => {
    event.preventDefault();
    if (!file.files?.[0]) return result.replaceChildren(h('p', { class: 'error', role: 'alert' }, say('Choose a file first.', 'Zuerst eine Datei wählen.')));
    result.replaceChildren(h('p', {}, say('Working…', 'In Arbeit…')));
    result.replaceChildren(outcome(await send(meta, file.files[0], mode.value, dryRun)));
  };
  return h(
    'details',
    { class: 'import-dialog' },
    h('summary', {}, say('Import from CSV or XLSX', 'Aus CSV oder XLSX importieren')),
    h('p', {}, say('Templates: ', 'Vorlagen: '), h('a', { href: `${meta.path}/import/template?format=xlsx` }, 'XLSX'), ' · ', h('a', { href: `${meta.path}/import/template?format=csv` }, 'CSV')),
    h('label', { for: 'import-file' }, say('File', 'Datei')),
    file,
    h('label', { for: 'import-mode' }, say('Mode', 'Modus')),
    mode,
    h('p', {}, h('button', { type: 'button', id: 'import-check', onclick: run(true) }, say('Check (dry run)', 'Prüfen (Probelauf)')), ' ', h('button', { type: 'button', id: 'import-run', onclick: run(false) }, say('Import', 'Importieren'))),
    result,
  );
}
