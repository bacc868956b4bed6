/**
 * The DMS batch endpoints (CONTRACT 10): counts, model permissions checked before the body,
 * all or nothing when an id in the middle is refused (every record verified unchanged), the
 * 1000-id limit, body validation, object rules and `protect` references, and POST as the only method.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { defineBatch } from '../engine/declare/index.js';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { Registry, loadDeclarations } from '../engine/registry/registry.js';
import { Client } from './support/client.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const MOVE = '/api/dms/batch_move';
const ARCHIVE = '/api/dms/batch_archive';
const DELETE = '/api/dms/batch_delete';

describe('DMS batch endpoints', () => {
  let source: any;
  let target: any;
  const folder = (title: string) => created(suite().admin, '/api/dms/folder', { title });
  const documents = async (n: number, folderId = source.id): Promise<any[]> => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await created(suite().admin, '/api/dms/document', { title: unique('doc'), folder_id: folderId }));
    return out;
  };
  const current = async (docs: any[]) => Promise.all(docs.map(async (d) => (await suite().admin.get(`/api/dms/document/${d.id}`)).body));

  before(async () => {
    source = await folder('Batch source');
    target = await folder('Batch target');
  });

  describe('happy paths', () => {
    it('batch_move moves every document once, duplicates counted once, and bumps modified', async () => {
      const docs = await documents(3);
      const bystander = (await documents(1))[0];
      const res = await suite().admin.post(MOVE, { document_ids: [docs[0].id, docs[1].id, docs[2].id, docs[0].id], folder_id: target.id });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ moved: 3 });
      const now = await current(docs);
      now.forEach((doc, i) => {
        expect(doc.folder).to.equal(target.id);
        expect(Date.parse(doc.modified)).to.be.greaterThan(Date.parse(docs[i].modified));
      });
      expect((await current([bystander]))[0]).to.deep.equal(bystander);
    });

    it('batch_archive archives the documents', async () => {
      const docs = await documents(2);
      const res = await suite().admin.post(ARCHIVE, { document_ids: docs.map((d) => d.id) });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ archived: 2 });
      for (const doc of await current(docs)) expect(doc.archived).to.equal(true);
    });

    it('batch_delete deletes the documents', async () => {
      const docs = await documents(2);
      const res = await suite().admin.post(DELETE, { document_ids: docs.map((d) => d.id) });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ deleted: 2 });
      for (const d of docs) expect((await suite().admin.get(`/api/dms/document/${d.id}`)).status).to.equal(404);
    });
  });

  describe('permissions (CONTRACT 7)', () => {
    it('needs dms.change_document to move and archive, dms.delete_document to delete', async () => {
      const viewer = await makeUser({ permissions: ['dms.view_document', 'dms.view_folder'] });
      const changer = await makeUser({ permissions: ['dms.view_document', 'dms.view_folder', 'dms.change_document'] });
      const deleter = await makeUser({ permissions: ['dms.view_document', 'dms.delete_document'] });
      const docs = await documents(2);
      const ids = docs.map((d) => d.id);
      const refused: [Client, string, object][] = [
        [viewer.client, MOVE, { document_ids: ids, folder_id: target.id }],
        [viewer.client, ARCHIVE, { document_ids: ids }],
        [viewer.client, DELETE, { document_ids: ids }],
        [deleter.client, MOVE, { document_ids: ids, folder_id: target.id }],
        [changer.client, DELETE, { document_ids: ids }],
      ];
      for (const [client, path, body] of refused) {
        const res = await client.post(path, body);
        expect(res.status, path).to.equal(403);
        expect(res.body).to.deep.equal({ detail: 'You do not have permission to perform this action.' });
      }
      expect(await current(docs)).to.deep.equal(docs);
      expect((await changer.client.post(MOVE, { document_ids: ids, folder_id: target.id })).body).to.deep.equal({ moved: 2 });
      expect((await changer.client.post(ARCHIVE, { document_ids: ids })).body).to.deep.equal({ archived: 2 });
      expect((await deleter.client.post(DELETE, { document_ids: ids })).body).to.deep.equal({ deleted: 2 });
    });

    it('checks the permission before reading the body', async () => {
      const viewer = await makeUser({ permissions: ['dms.view_document'] });
      const res = await viewer.client.request('POST', MOVE, { raw: '{not json', headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(403);
    });
  });

  describe('all or nothing', () => {
    const missing = 2147480000;
    const cases: [string, (ids: number[]) => object][] = [
      [MOVE, (ids) => ({ document_ids: ids, folder_id: target.id })],
      [ARCHIVE, (ids) => ({ document_ids: ids })],
      [DELETE, (ids) => ({ document_ids: ids })],
    ];
    for (const [path, body] of cases) {
      it(`${path}: a missing id in the middle answers 400 and changes nothing`, async () => {
        const docs = await documents(4);
        const ids = docs.map((d) => d.id);
        const res = await suite().admin.post(path, body([ids[0], ids[1], missing, ids[2], ids[3]]));
        expect(res.status).to.equal(400);
        expect(res.body).to.deep.equal({ document_ids: [`Invalid pk "${missing}" - object does not exist.`] });
        expect(await current(docs)).to.deep.equal(docs);
      });
    }

    it('batch_move into a missing folder answers 400 under folder_id and moves nothing', async () => {
      const docs = await documents(2);
      const res = await suite().admin.post(MOVE, { document_ids: docs.map((d) => d.id), folder_id: missing });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ folder_id: [`Invalid pk "${missing}" - object does not exist.`] });
      expect(await current(docs)).to.deep.equal(docs);
    });
  });

  describe('body', () => {
    it('refuses more than 1000 ids, counting what is sent, repeats included', async () => {
      const [doc] = await documents(1);
      const distinct = Array.from({ length: 1001 }, (_, i) => i + 1);
      const repeated = Array.from({ length: 1001 }, () => doc!.id as number);
      for (const ids of [distinct, repeated]) {
        for (const path of [MOVE, ARCHIVE, DELETE]) {
          const res = await suite().admin.post(path, { document_ids: ids, folder_id: target.id });
          expect(res.status, path).to.equal(400);
          expect(res.body.document_ids).to.deep.equal(['Ensure this field has no more than 1000 elements.']);
        }
      }
      expect(await current([doc!])).to.deep.equal([doc]);
    });

    it('names every offending field: required, list, integers, unknown fields', async () => {
      const { admin } = suite();
      expect((await admin.post(MOVE, {})).body).to.deep.equal({ document_ids: ['This field is required.'], folder_id: ['This field is required.'] });
      expect((await admin.post(ARCHIVE, { document_ids: 'x', folder_id: 1 })).body).to.deep.equal({
        document_ids: ['Expected a list of items but got type "str".'],
        folder_id: ['Unknown field.'],
      });
      expect((await admin.post(DELETE, { document_ids: [] })).body).to.deep.equal({ document_ids: ['This list may not be empty.'] });
      expect((await admin.post(MOVE, { document_ids: ['a'], folder_id: null })).body).to.deep.equal({
        document_ids: ['A valid integer is required.'],
        folder_id: ['This field may not be null.'],
      });
      expect((await admin.post(ARCHIVE, [1, 2])).body).to.deep.equal({ detail: 'Invalid data. Expected a dictionary, but got list.' });
    });

    it('answers 405 with Allow: POST to other methods', async () => {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const res = await suite().admin.request(method, ARCHIVE);
        expect(res.status, method).to.equal(405);
        expect(res.headers.get('allow')).to.equal('POST');
        expect(res.body).to.deep.equal({ detail: `Method "${method}" not allowed.` });
      }
    });
  });

  describe('a batch over records with object rules, protect references, trees, shared parents and states', () => {
    // nothing protects DMS documents, so a service is started with one more declaration: deleting trackers
    let server: http.Server;
    let client: Client;
    before(async () => {
      const declarations = await loadDeclarations();
      const trackers = defineBatch({
        module: 'issue',
        name: 'batch_delete',
        resource: 'issue/tracker',
        operation: { kind: 'delete' },
        permission: 'delete',
        resultKey: 'deleted',
        description: 'Deletes trackers (test only).',
      });
      const more = [
        trackers,
        defineBatch({ module: 'dms', name: 'batch_nest', resource: 'dms/folder', operation: { kind: 'setForeignKey', relation: 'parent' }, permission: 'change', resultKey: 'moved', description: 'Moves folders (test only).' }),
        defineBatch({ module: 'issue', name: 'batch_retrack', resource: 'issue/issue', operation: { kind: 'setForeignKey', relation: 'tracker' }, permission: 'change', resultKey: 'moved', description: 'Moves issues (test only).' }),
        defineBatch({ module: 'dms', name: 'batch_expire', resource: 'dms/document', operation: { kind: 'set', values: { valid_to: '2000-01-01' } }, permission: 'change', resultKey: 'expired', description: 'Ends documents\' validity (test only).' }),
        defineBatch({ module: 'issue', name: 'batch_pending', resource: 'issue/issue', operation: { kind: 'set', values: { state: 'pending' } }, permission: 'change', resultKey: 'changed', description: 'Moves issues on (test only).' }),
      ];
      const registry = new Registry({ resources: declarations.resources, batches: [...declarations.batches, ...more] });
      const app = createApp({ db: suite().service.db, registry, log: createLogger('silent') });
      server = http.createServer(app.koa.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, suite().admin.token);
    });
    after(async () => {
      await new Promise<void>((r) => server.close(() => r()));
    });

    it('answers 409 with the single-delete message and deletes nothing', async () => {
      const { admin } = suite();
      const [free, used, other] = [await created(admin, '/api/issue/tracker', { title: 'free' }), await created(admin, '/api/issue/tracker', { title: 'used' }), await created(admin, '/api/issue/tracker', { title: 'other' })];
      for (const title of ['a', 'b']) await created(admin, '/api/issue/issue', { tracker_id: used.id, title });
      const res = await client.post('/api/issue/batch_delete', { tracker_ids: [free.id, used.id, other.id] });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({ detail: `Cannot delete tracker ${used.id}: referenced by 2 issue records.` });
      for (const t of [free, used, other]) expect((await admin.get(`/api/issue/tracker/${t.id}`)).body).to.deep.equal(t);
      expect((await client.post('/api/issue/batch_delete', { tracker_ids: [free.id, other.id] })).body).to.deep.equal({ deleted: 2 });
    });

    it('refuses an invisible id in the middle with 400, and a visible one the caller may not change with 403', async () => {
      const { admin } = suite();
      const user = await makeUser({ permissions: ['issues.view_tracker', 'issues.delete_tracker'] });
      const mine = [await created(admin, '/api/issue/tracker', { title: 'mine 1', admin_ids: [user.id] }), await created(admin, '/api/issue/tracker', { title: 'mine 2', admin_ids: [user.id] })];
      const hidden = await created(admin, '/api/issue/tracker', { title: 'hidden', visibility: 'confidential' });
      const foreign = await created(admin, '/api/issue/tracker', { title: 'foreign' });
      const as = client.as(user.token);
      const invisible = await as.post('/api/issue/batch_delete', { tracker_ids: [mine[0].id, hidden.id, mine[1].id] });
      expect(invisible.status).to.equal(400);
      expect(invisible.body).to.deep.equal({ tracker_ids: [`Invalid pk "${hidden.id}" - object does not exist.`] });
      const unchangeable = await as.post('/api/issue/batch_delete', { tracker_ids: [mine[0].id, foreign.id, mine[1].id] });
      expect(unchangeable.status).to.equal(403);
      for (const t of [...mine, hidden, foreign]) expect((await admin.get(`/api/issue/tracker/${t.id}`)).body).to.deep.equal(t);
      expect((await as.post('/api/issue/batch_delete', { tracker_ids: mine.map((t) => t.id) })).body).to.deep.equal({ deleted: 2 });
    });
    // the checks the records' own writes make, made over the whole set: the first refused record answers, nothing changes
    it('refuses a tree move that would make a folder its own ancestor', async () => {
      const { admin } = suite();
      const top = await folder('top');
      const child = await created(admin, '/api/dms/folder', { title: 'child', parent_id: top.id });
      const other = await folder('other');
      const res = await client.post('/api/dms/batch_nest', { folder_ids: [other.id, top.id], parent_id: child.id });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ parent_id: [`Cannot set parent to ${child.id}: the folder would become its own ancestor.`] });
      for (const f of [top, child, other]) expect((await admin.get(`/api/dms/folder/${f.id}`)).body).to.deep.equal(f);
      expect((await client.post('/api/dms/batch_nest', { folder_ids: [other.id], parent_id: child.id })).body).to.deep.equal({ moved: 1 });
      expect((await admin.get(`/api/dms/folder/${other.id}`)).body.parent).to.equal(child.id);
    });

    it("refuses moving an issue to a tracker its categories do not belong to", async () => {
      const { admin } = suite();
      const [from, to] = [await created(admin, '/api/issue/tracker', { title: 'from' }), await created(admin, '/api/issue/tracker', { title: 'to' })];
      const category = await created(admin, '/api/issue/category', { tracker_id: from.id, title: 'kept' });
      const bare = await created(admin, '/api/issue/issue', { tracker_id: from.id, title: 'bare' });
      const tagged = await created(admin, '/api/issue/issue', { tracker_id: from.id, title: 'tagged', category_ids: [category.id] });
      const res = await client.post('/api/issue/batch_retrack', { issue_ids: [bare.id, tagged.id], tracker_id: to.id });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ category_ids: [`Category ${category.id} does not belong to tracker ${to.id}.`] });
      for (const i of [bare, tagged]) expect((await admin.get(`/api/issue/issue/${i.id}`)).body).to.deep.equal(i);
      expect((await client.post('/api/issue/batch_retrack', { issue_ids: [bare.id], tracker_id: to.id })).body).to.deep.equal({ moved: 1 });
      expect((await admin.get(`/api/issue/issue/${bare.id}`)).body.tracker).to.equal(to.id);
    });

    it('holds every record to its order rule, set by the batch or as stored, the first refused record answering', async () => {
      const { admin, service } = suite();
      const home = await folder('ordered');
      const doc = (body: object) => created(admin, '/api/dms/document', { title: unique('ordered'), folder_id: home.id, ...body });
      const [open, late, early] = [await doc({}), await doc({ valid_from: '2001-05-01' }), await doc({ valid_from: '1999-05-01' })];
      // valid_to set by the batch: compared with each record's valid_from
      const res = await client.post('/api/dms/batch_expire', { document_ids: [early.id, late.id, open.id] });
      expect([res.status, res.body]).to.deep.equal([400, { valid_to: ['Must not be before valid_from.'] }]);
      for (const d of [open, late, early]) expect((await admin.get(`/api/dms/document/${d.id}`)).body).to.deep.equal(d);
      expect((await client.post('/api/dms/batch_expire', { document_ids: [early.id, open.id] })).body).to.deep.equal({ expired: 2 });
      // a record stored out of order (written past the API) is refused by a batch that keeps its dates, as its own PATCH would be
      await service.db('dms_document').where({ id: late.id }).update({ valid_to: '2000-01-01' });
      const kept = await client.post(ARCHIVE, { document_ids: [open.id, late.id] });
      expect([kept.status, kept.body]).to.deep.equal([400, { valid_to: ['Must not be before valid_from.'] }]);
      expect((await admin.patch(`/api/dms/document/${late.id}`, { archived: true })).body).to.deep.equal({ valid_to: ['Must not be before valid_from.'] });
      expect((await admin.get(`/api/dms/document/${open.id}`)).body.archived).to.equal(false);
    });

    it('moves states along declared transitions only, and logs each move', async () => {
      const { admin } = suite();
      const tracker = await created(admin, '/api/issue/tracker', { title: 'states' });
      const issue = (title: string) => created(admin, '/api/issue/issue', { tracker_id: tracker.id, title });
      const [a, b, done] = [await issue('a'), await issue('b'), await issue('done')];
      const rejected = (await admin.patch(`/api/issue/issue/${done.id}`, { state: 'rejected' })).body;
      const res = await client.post('/api/issue/batch_pending', { issue_ids: [a.id, done.id, b.id] });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ state: ['Transition from "rejected" to "pending" is not allowed.'] });
      for (const i of [a, rejected, b]) expect((await admin.get(`/api/issue/issue/${i.id}`)).body).to.deep.equal(i);
      expect((await client.post('/api/issue/batch_pending', { issue_ids: [a.id, b.id] })).body).to.deep.equal({ changed: 2 });
      for (const i of [a, b]) {
        expect((await admin.get(`/api/issue/issue/${i.id}`)).body.state).to.equal('pending');
        const log = (await admin.get(`/api/issue/issue/${i.id}/transitions`)).body;
        expect(log.map((l: any) => [l.from, l.to, l.changed_by])).to.deep.equal([
          [null, 'new', suite().adminId],
          ['new', 'pending', suite().adminId],
        ]);
      }
    });
  });
});
