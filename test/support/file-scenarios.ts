/**
 * What every blob store must do behind the file routes, run against each backend (files.test.ts on
 * local disk, files-s3.test.ts on a loopback S3 server): uploads and byte-identical downloads,
 * ranges, 304, 413 with nothing left behind, the type check, a hidden record's 404, versions and
 * restore, deduplication, attachments (multipart too) and the orphan sweep after a crash between
 * storing and committing.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { BlobStore } from '../../engine/files/blob-store.js';
import { receive } from '../../engine/files/intake.js';
import { holdFilesLock, sweepFiles } from '../../engine/files/sweep.js';
import { loadRegistry } from '../../engine/registry/registry.js';
import { created, makeUser, unique, type TestUser } from './fixtures.js';
import { suite } from './hooks.js';

export interface FileTarget {
  /** The service under test (its file routes use `store`). */
  url: string;
  store: BlobStore;
  /** Its FILE_MAX_BYTES. */
  maxBytes: number;
}

export const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
/** A minimal PDF: its signature is what file-type reads. */
export const pdf = (text: string): Buffer => Buffer.from(`%PDF-1.4\n% ${text}\n${'x'.repeat(2000)}\n%%EOF\n`);

const DMS = ['folder', 'document'].flatMap((m) => ['view', 'add', 'change', 'delete'].map((a) => `dms.${a}_${m}`));

async function storedEntries(store: BlobStore) {
  const all = [];
  for await (const e of store.list()) all.push(e);
  return all;
}

export function fileScenarios(target: () => FileTarget): void {
  let folder: any;
  const token = () => suite().admin.token!;
  const document = () => created(suite().admin, '/api/dms/document', { title: unique('doc'), folder_id: folder.id });
  const call = (method: string, path: string, init: { body?: BodyInit | Buffer; headers?: Record<string, string>; token?: string } = {}) =>
    fetch(target().url + path, { method, headers: { Authorization: `Token ${init.token ?? token()}`, ...init.headers }, body: init.body as BodyInit | undefined });
  const put = (doc: any, bytes: Buffer, type = 'application/pdf', name = 'report.pdf', as?: string) =>
    call('PUT', `/api/dms/document/${doc.id}/file`, {
      body: bytes,
      token: as,
      headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` },
    });

  before(async () => {
    folder = await created(suite().admin, '/api/dms/folder', { title: unique('files') });
  });

  it('uploads a file and downloads the same bytes with their metadata, headers and the record showing them', async () => {
    const doc = await document();
    const bytes = pdf('first');
    const res = await put(doc, bytes, 'application/pdf', 'Prüfbericht 2026.pdf');
    expect(res.status, await res.clone().text()).to.equal(200);
    const meta = await res.json();
    expect(meta).to.include({ name: 'Prüfbericht 2026.pdf', size: bytes.length, type: 'application/pdf', sha256: sha(bytes), version: 1, uploaded_by: suite().adminId });
    expect(meta.url).to.equal(`/api/dms/document/${doc.id}/file`);
    const record = await suite().admin.get(`/api/dms/document/${doc.id}`);
    expect(record.body.file).to.deep.equal(meta);
    const down = await call('GET', meta.url);
    expect(down.status).to.equal(200);
    const body = Buffer.from(await down.arrayBuffer());
    expect(sha(body)).to.equal(sha(bytes));
    expect(down.headers.get('content-type')).to.equal('application/pdf');
    expect(down.headers.get('content-length')).to.equal(String(bytes.length));
    expect(down.headers.get('etag')).to.equal(`"${sha(bytes)}"`);
    expect(down.headers.get('last-modified')).to.equal(new Date(meta.uploaded_at).toUTCString());
    expect(down.headers.get('content-disposition')).to.match(/^attachment; filename="Pr\?fbericht 2026\.pdf"; filename\*=UTF-8''Pr%C3%BCfbericht%202026\.pdf$/);
    expect(down.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(down.headers.get('accept-ranges')).to.equal('bytes');
    const head = await call('HEAD', meta.url);
    expect([head.status, head.headers.get('content-length')]).to.deep.equal([200, String(bytes.length)]);
  });

  it('answers single ranges with 206, an unsatisfiable one with 416, and a known ETag with 304', async () => {
    const doc = await document();
    const bytes = pdf('ranges');
    await put(doc, bytes);
    const url = `/api/dms/document/${doc.id}/file`;
    const first = await call('GET', url, { headers: { Range: 'bytes=0-9' } });
    expect(first.status).to.equal(206);
    expect(first.headers.get('content-range')).to.equal(`bytes 0-9/${bytes.length}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes.subarray(0, 10))).to.equal(true);
    const tail = await call('GET', url, { headers: { Range: 'bytes=-7' } });
    expect(tail.status).to.equal(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 7))).to.equal(true);
    const open = await call('GET', url, { headers: { Range: `bytes=${bytes.length - 3}-` } });
    expect(Buffer.from(await open.arrayBuffer()).equals(bytes.subarray(bytes.length - 3))).to.equal(true);
    const past = await call('GET', url, { headers: { Range: `bytes=${bytes.length}-` } });
    expect(past.status).to.equal(416);
    expect(past.headers.get('content-range')).to.equal(`bytes */${bytes.length}`);
    expect(await past.json()).to.deep.equal({ detail: 'Requested range not satisfiable.' });
    const stale = await call('GET', url, { headers: { Range: 'bytes=0-9', 'If-Range': '"other"' } });
    expect(stale.status).to.equal(200);
    const same = await call('GET', url, { headers: { 'If-None-Match': `"${sha(bytes)}"` } });
    expect(same.status).to.equal(304);
    expect(await same.text()).to.equal('');
  });

  it('answers 413 as soon as an upload passes the limit, leaving no bytes and no change behind', async () => {
    const doc = await document();
    const before = await storedEntries(target().store);
    const limit = target().maxBytes;
    // chunked: no Content-Length to refuse by, so the count while streaming must stop it
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${target().url}/api/dms/document/${doc.id}/file`, {
        method: 'PUT',
        headers: { Authorization: `Token ${token()}`, 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment; filename="big.bin"', 'Transfer-Encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      let sent = 0;
      const chunk = randomBytes(64 * 1024);
      const more = () => {
        // far past the limit: the answer must come before the client is done
        while (sent < limit * 20) {
          sent += chunk.length;
          if (!req.write(chunk)) return req.once('drain', more);
        }
        req.end();
      };
      more();
    });
    expect(status).to.equal(413);
    const declared = await call('PUT', `/api/dms/document/${doc.id}/file`, {
      body: Buffer.alloc(limit + 1),
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment; filename="big.bin"' },
    });
    expect(declared.status).to.equal(413);
    expect((await declared.json()).detail).to.equal(`File too large: at most ${limit} bytes.`);
    expect((await suite().admin.get(`/api/dms/document/${doc.id}`)).body.file).to.equal(null);
    expect(await storedEntries(target().store)).to.have.length(before.length);
  });

  it('refuses bytes whose signature contradicts the media type sent (400), and never serves HTML as HTML', async () => {
    const doc = await document();
    const asPng = await put(doc, pdf('not a png'), 'image/png', 'x.png');
    expect(asPng.status).to.equal(400);
    expect(await asPng.json()).to.deep.equal({ file: ['The file\'s content is application/pdf, not image/png as sent.'] });
    const noPdf = await put(doc, Buffer.from('just text'), 'application/pdf');
    expect(noPdf.status).to.equal(400);
    const asText = await put(doc, pdf('hidden pdf'), 'text/plain', 'notes.txt');
    expect(asText.status).to.equal(400);
    const noName = await call('PUT', `/api/dms/document/${doc.id}/file`, { body: 'x', headers: { 'Content-Type': 'text/plain' } });
    expect(noName.status).to.equal(400);
    expect((await noName.json()).file[0]).to.match(/^Send the file name/);
    const html = await put(doc, Buffer.from('<script>alert(1)</script>'), 'text/html', 'page.html');
    expect(html.status).to.equal(200);
    const down = await call('GET', `/api/dms/document/${doc.id}/file`);
    expect(down.headers.get('content-type')).to.equal('application/octet-stream');
    expect(down.headers.get('content-disposition')).to.match(/^attachment;/);
  });

  it("keeps the record's permissions and visibility: a hidden record's file is 404, a seen one needs change to upload", async () => {
    const { admin } = suite();
    const stranger: TestUser = await makeUser({ permissions: DMS });
    const member: TestUser = await makeUser({ permissions: DMS });
    const noPerms: TestUser = await makeUser({ permissions: [] });
    const closed = await created(admin, '/api/dms/folder', { title: unique('closed'), visibility: 'protected', team_member_ids: [member.id] });
    const doc = await created(admin, '/api/dms/document', { title: unique('secret'), folder_id: closed.id });
    expect((await put(doc, pdf('secret'))).status).to.equal(200);
    const url = `/api/dms/document/${doc.id}/file`;
    for (const path of [url, `${url}/versions`, `${url}/versions/1`]) expect((await call('GET', path, { token: stranger.token })).status, path).to.equal(404);
    expect((await put(doc, pdf('x'), 'application/pdf', 'x.pdf', stranger.token)).status).to.equal(404);
    expect((await call('POST', `${url}/versions/1/restore`, { token: stranger.token })).status).to.equal(404);
    expect((await call('GET', url, { token: member.token })).status).to.equal(200);
    expect((await put(doc, pdf('x'), 'application/pdf', 'x.pdf', member.token)).status).to.equal(403);
    expect((await call('GET', url, { token: noPerms.token })).status).to.equal(403);
    expect((await call('GET', url, { token: '' })).status).to.equal(401);
    expect((await call('DELETE', url)).status).to.equal(405);
  });

  it('keeps every version, restores an old one as a new version, and records both in the audit trail', async () => {
    const doc = await document();
    const [one, two] = [pdf('one'), pdf('two')];
    await put(doc, one, 'application/pdf', 'one.pdf');
    await put(doc, two, 'application/pdf', 'two.pdf');
    const url = `/api/dms/document/${doc.id}/file`;
    const versions = await (await call('GET', `${url}/versions`)).json();
    expect(versions.map((v: any) => [v.version, v.name, v.sha256])).to.deep.equal([
      [1, 'one.pdf', sha(one)],
      [2, 'two.pdf', sha(two)],
    ]);
    expect(await (await call('GET', `${url}/versions/2`)).json()).to.deep.equal(versions[1]);
    expect((await call('GET', `${url}/versions/9`)).status).to.equal(404);
    const restored = await call('POST', `${url}/versions/1/restore`);
    expect(restored.status).to.equal(201);
    expect(await restored.json()).to.include({ version: 3, restored_from: 1, name: 'one.pdf', sha256: sha(one) });
    expect(sha(Buffer.from(await (await call('GET', url)).arrayBuffer()))).to.equal(sha(one));
    const audit = await suite().admin.get(`/api/audit?resource=dms/document&record_id=${doc.id}&action=update`);
    const files = audit.body.map((e: any) => e.changes.file?.[1]?.version);
    expect(files).to.deep.equal([3, 2, 1]);
    // the record's history, newest first: each upload and the restore a version of the record
    const history = (await suite().admin.get(`/api/dms/document/${doc.id}/history`)).body as any[];
    expect(history.map((h) => h.values.file && [h.values.file.version, h.values.file.restored_from])).to.deep.equal([[3, 1], [2, null], [1, null], null]);
  });

  it('keeps a trashed record\'s versions and bytes until the trash is purged', async () => {
    const { db } = suite().service;
    const { resources } = await loadRegistry();
    const bytes = pdf(`trashed ${unique('x')}`);
    const doc = await document();
    expect((await put(doc, bytes)).status).to.equal(200);
    expect((await suite().admin.delete(`/api/dms/document/${doc.id}`)).status).to.equal(204);
    const entry = () => suite().admin.get(`/api/trash?resource=dms/document&record_id=${doc.id}`).then((r) => (r.body as any[])[0]);
    const trashed = await entry();
    await sweepFiles(db, target().store, resources, 0);
    expect(await target().store.exists(sha(bytes))).to.equal(true);
    expect((await suite().admin.post(`/api/trash/${trashed.id}/restore`)).status).to.equal(200);
    const back = await call('GET', `/api/dms/document/${doc.id}/file`);
    expect(back.status).to.equal(200);
    expect(sha(Buffer.from(await back.arrayBuffer()))).to.equal(sha(bytes));
    expect((await (await call('GET', `/api/dms/document/${doc.id}/file/versions`)).json()).map((v: any) => v.version)).to.deep.equal([1]);
    // deleted again and purged: the sweep drops its versions and, named by no one else, its bytes
    expect((await suite().admin.delete(`/api/dms/document/${doc.id}`)).status).to.equal(204);
    expect((await suite().admin.delete(`/api/trash/${(await entry()).id}`)).status).to.equal(204);
    const swept = await sweepFiles(db, target().store, resources, 0);
    expect(swept.versionsDropped).to.be.at.least(1);
    expect(await target().store.exists(sha(bytes))).to.equal(false);
  });

  it('stores the same bytes once, however often and wherever they are uploaded', async () => {
    const bytes = pdf(`dedup ${unique('x')}`);
    for (let i = 0; i < 3; i++) expect((await put(await document(), bytes)).status).to.equal(200);
    const copies = (await storedEntries(target().store)).filter((e) => e.kind === 'blob' && e.sha256 === sha(bytes));
    expect(copies).to.have.length(1);
  });

  it('attaches files to a record (raw and multipart), lists, downloads and removes them', async () => {
    const tracker = await created(suite().admin, '/api/issue/tracker', { title: unique('files') });
    const issue = await created(suite().admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'With attachments' });
    const base = `/api/issue/issue/${issue.id}/attachments`;
    const raw = await call('POST', base, { body: 'a,b\n1,2\n', headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="data.csv"' } });
    expect(raw.status).to.equal(201);
    const form = new FormData();
    form.append('note', 'ignored');
    form.append('file', new Blob([new Uint8Array(pdf('multipart'))], { type: 'application/pdf' }), 'Ablauf ü.pdf');
    const multi = await call('POST', base, { body: form });
    expect(multi.status, await multi.clone().text()).to.equal(201);
    const second = await multi.json();
    expect(second).to.include({ name: 'Ablauf ü.pdf', type: 'application/pdf', sha256: sha(pdf('multipart')) });
    const listed = (await suite().admin.get(`/api/issue/issue/${issue.id}`)).body.attachments;
    expect(listed.map((a: any) => a.name)).to.deep.equal(['data.csv', 'Ablauf ü.pdf']);
    expect(await (await call('GET', base)).json()).to.deep.equal(listed);
    const down = await call('GET', second.url);
    expect(sha(Buffer.from(await down.arrayBuffer()))).to.equal(sha(pdf('multipart')));
    expect((await call('DELETE', second.url)).status).to.equal(204);
    expect((await call('GET', second.url)).status).to.equal(404);
    expect((await suite().admin.get(`/api/issue/issue/${issue.id}`)).body.attachments.map((a: any) => a.name)).to.deep.equal(['data.csv']);
  });

  it('sweeps bytes a crash left between store and commit, and keeps those an upload in flight is naming', async () => {
    const { db } = suite().service;
    const { resources } = await loadRegistry();
    const store = target().store;
    const kept = pdf(`kept ${unique('x')}`);
    const doc = await document();
    await put(doc, kept);
    // the crash: bytes stored and named in the store, the transaction never commits
    const lost = pdf(`lost ${unique('x')}`);
    const crashed = await receive(Readable.from([lost]), store, 1 << 20);
    await db
      .transaction(async (trx) => {
        await holdFilesLock(trx);
        await store.promote(crashed.temp, crashed.sha256);
        throw new Error('crash before commit');
      })
      .catch(() => undefined);
    expect(await store.exists(sha(lost))).to.equal(true);
    // in flight: stored and named while the sweep runs, committed after it began
    const flying = pdf(`flying ${unique('x')}`);
    const received = await receive(Readable.from([flying]), store, 1 << 20);
    let sweep: Promise<unknown> | undefined;
    await db.transaction(async (trx) => {
      await holdFilesLock(trx);
      await store.promote(received.temp, received.sha256);
      sweep = sweepFiles(db, store, resources, 0);
      await new Promise((r) => setTimeout(r, 300));
      await trx('file_versions').insert({ resource: 'dms/document', record_id: doc.id, slot: 'file', version: 99, name: 'f.pdf', size: flying.length, media_type: 'application/pdf', sha256: received.sha256 });
    });
    // the crash's bytes, and those of an attachment removed above
    const result = (await sweep) as { blobsRemoved: number };
    expect(result.blobsRemoved).to.be.at.least(1);
    expect(await store.exists(sha(lost))).to.equal(false);
    expect(await store.exists(sha(kept))).to.equal(true);
    expect(await store.exists(sha(flying))).to.equal(true);
    expect((await storedEntries(store)).filter((e) => e.kind === 'temp')).to.have.length(0);
  });
}
