// A record's files (file fields and attachments, engine/files): the current file or the
// attachments as download links, an upload by drag and drop or by choosing a file, with its
// progress, and a file field's versions with a restore button each. The bytes go up raw, named in
// Content-Disposition, through XMLHttpRequest: fetch reports no upload progress.
import { api, csrfToken, errorText } from './api.js';
import { h, labelOf, say, shown } from './dom.js';
import { t } from './i18n.js';
import { userShown, usersById } from './names.js';
import { registerPanel } from './record-panels.js';

const isFiles = (field) => field.spec?.type === 'file' || field.spec?.type === 'attachments';

/** 48213 → "47.1 KiB". */
export function sizeShown(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return `${unit ? n.toFixed(1) : n} ${units[unit]}`;
}

/** A stored file as a download link (its name) with its size. */
export function fileLink(file) {
  return h('span', { class: 'file' }, h('a', { href: file.url, download: file.name, 'data-sha256': file.sha256 }, file.name), ` (${sizeShown(file.size)})`);
}

/** Sends `file` with `method` to `url`, reporting progress to `progress`; resolves `{ status, data }`. */
function send(method, url, file, progress) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('X-CSRFToken', csrfToken());
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) progress.value = event.loaded / event.total;
    });
    const done = () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: a connection closed early (413) says it in its status
      }
      resolve({ status: xhr.status, data });
    };
    xhr.addEventListener('load', done);
    xhr.addEventListener('error', done);
    xhr.send(file);
  });
}

/** A drop zone and a file input; the chosen or dropped file is uploaded at once. */
function uploader(meta, record, app, field) {
  const url = `${meta.path}/${record.id}/${field.name}`;
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': t('uploading') });
  const upload = async (file) => {
    if (!file) return;
    progress.hidden = false;
    progress.value = 0;
    const res = await send(field.spec.type === 'file' ? 'PUT' : 'POST', url, file, progress);
    progress.hidden = true;
    if (res.status === 200 || res.status === 201) return app.go(`#/r/${meta.key}/${record.id}`, t('uploaded', { name: file.name }));
    say(res.data ? errorText(res.data) : t('uploadFailed', { status: res.status }));
  };
  const input = h('input', { type: 'file', 'data-upload': field.name, onchange: () => upload(input.files[0]) });
  const zone = h(
    'div',
    {
      class: 'dropzone',
      'data-drop': field.name,
      ondragover: (event) => {
        event.preventDefault();
        zone.classList.add('over');
      },
      ondragleave: () => zone.classList.remove('over'),
      ondrop: (event) => {
        event.preventDefault();
        zone.classList.remove('over');
        void upload(event.dataTransfer.files[0]);
      },
    },
    h('span', {}, t('dropFile')),
    h('label', {}, `${t('orChoose')} `, input),
    progress,
  );
  return zone;
}

/** A file field's versions, newest first, each downloadable; older ones restorable. */
async function versionsTable(meta, record, app, field, mayChange) {
  const base = `${meta.path}/${record.id}/${field.name}`;
  const versions = ((await api('GET', `${base}/versions`)).data ?? []).slice().reverse();
  if (!versions.length) return null;
  const users = await usersById(app, versions.map((v) => v.uploaded_by));
  const current = record[field.name]?.version;
  const restore = async (v) => {
    const res = await api('POST', `${base}/versions/${v.version}/restore`);
    if (res.status === 201) return app.go(`#/r/${meta.key}/${record.id}`, t('restoredFileVersion', { n: v.version }));
    say(errorText(res.data));
  };
  const row = (v) =>
    h(
      'tr',
      { 'data-version': v.version },
      h('td', {}, String(v.version), v.restored_from ? ` (${t('restoredFrom', { n: v.restored_from })})` : ''),
      h('td', {}, v.name),
      h('td', {}, sizeShown(v.size)),
      h('td', {}, userShown(app, users, v.uploaded_by)),
      h('td', {}, shown(v.uploaded_at, 'datetime')),
      h('td', {}, mayChange && v.version !== current ? h('button', { type: 'button', class: 'restore-version', onclick: () => restore(v) }, t('restore')) : ''),
    );
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'versions' },
      h('caption', {}, t('versions')),
      h('thead', {}, h('tr', {}, [t('version'), t('name'), t('size'), t('by'), t('when'), ''].map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, versions.map(row)),
    ),
  );
}

/** The attachments as links, each removable. */
function attachmentList(meta, record, app, field, mayChange) {
  const attachments = record[field.name] ?? [];
  if (!attachments.length) return h('p', {}, t('noFiles'));
  const remove = async (a) => {
    if (!confirm(t('removeAsk', { name: a.name }))) return;
    const res = await api('DELETE', a.url);
    if (res.status === 204) return app.go(`#/r/${meta.key}/${record.id}`, t('removed', { name: a.name }));
    say(errorText(res.data));
  };
  return h('ul', { class: 'attachments' }, attachments.map((a) => h('li', { 'data-attachment': a.id }, fileLink(a), mayChange ? [' ', h('button', { type: 'button', class: 'remove-attachment', onclick: () => remove(a) }, t('remove'))] : '')));
}

registerPanel({
  id: 'files',
  place: 'after',
  applies: (meta) => meta.fields.some(isFiles),
  async render(meta, record, app) {
    const mayChange = app.can(meta.key, 'change');
    const sections = await Promise.all(
      meta.fields.filter(isFiles).map(async (field) => {
        const single = field.spec.type === 'file';
        const value = record[field.name];
        return h(
          'section',
          { class: 'files', 'data-files': field.name, 'aria-labelledby': `files-${field.name}` },
          h('h2', { id: `files-${field.name}` }, labelOf(field)),
          single ? h('p', { class: 'current' }, value ? fileLink(value) : t('noFiles')) : attachmentList(meta, record, app, field, mayChange),
          mayChange ? uploader(meta, record, app, field) : null,
          single ? await versionsTable(meta, record, app, field, mayChange) : null,
        );
      }),
    );
    return h('div', { class: 'file-panels' }, sections);
  },
});
