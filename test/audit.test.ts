/**
 * The audit trail: every write, on each write path (one statement, its transaction with checks in the process, deletes, batch
 * actions), is recorded in its transaction with user, request id and changes; passwords never are;
 * `/api/audit` serves it read-only, filtered, to whom may see the records.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { SessionClient } from './support/browser-session.js';

const entries = async (query: string) => {
  const res = await suite().admin.get(`/api/audit?${query}`);
  expect(res.status, res.text).to.equal(200);
  return res.body as any[];
};

describe('audit trail', () => {
  it('records a create, an update with [old, new] pairs, a state change and a delete, newest first, with user and request id', async () => {
    const { admin, adminId } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('audited') });
    const res = await admin.post('/api/issue/issue', { tracker_id: tracker.id, title: 'first' }, { headers: { 'X-Request-Id': 'audit-create-1' } });
    expect(res.status, res.text).to.equal(201);
    const id = res.body.id;
    expect((await admin.patch(`/api/issue/issue/${id}`, { title: 'second' })).status).to.equal(200);
    expect((await admin.patch(`/api/issue/issue/${id}`, { state: 'pending' })).status).to.equal(200);
    expect((await admin.delete(`/api/issue/issue/${id}`)).status).to.equal(204);

    const trail = await entries(`resource=issue/issue&record_id=${id}`);
    expect(trail.map((e) => e.action)).to.deep.equal(['delete', 'update', 'update', 'create']);
    const [deleted, moved, renamed, made] = trail;
    expect(made).to.include({ user: adminId, resource: 'issue/issue', record_id: id, request_id: 'audit-create-1' });
    expect(made.changes).to.include({ title: 'first', state: 'new', tracker_id: tracker.id });
    expect(made.at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(renamed.changes).to.deep.equal({ title: ['first', 'second'] });
    expect(moved.changes).to.deep.equal({ state: ['new', 'pending'] });
    expect(deleted.changes).to.include({ title: 'second', state: 'pending' });
    expect(renamed.request_id).to.be.a('string').and.not.equal('audit-create-1');

    const detail = await admin.get(`/api/audit/${renamed.id}`);
    expect(detail.status).to.equal(200);
    expect(detail.body).to.deep.equal(renamed);
  });

  it("records a non-superuser's writes (checks in the process, hooks) and batch actions, in the same transaction as the write", async () => {
    const { admin } = suite();
    const writer = await makeUser({ permissions: ['issues.add_tracker', 'issues.view_tracker', 'issues.change_tracker'] });
    const tracker = await created(writer.client, '/api/issue/tracker', { title: unique('checked'), admin_ids: [writer.id] });
    const [entry] = await entries(`resource=issue/tracker&record_id=${tracker.id}`);
    expect(entry).to.include({ action: 'create', user: writer.id });

    const first = await created(admin, '/api/dms/folder', { title: unique('folder') });
    const folder = await created(admin, '/api/dms/folder', { title: unique('folder') });
    const doc = await created(admin, '/api/dms/document', { title: unique('doc'), folder_id: first.id });
    const moved = await admin.post('/api/dms/batch_move', { document_ids: [doc.id], folder_id: folder.id });
    expect(moved.status, moved.text).to.equal(200);
    const [move] = await entries(`resource=dms/document&record_id=${doc.id}&action=update`);
    expect(move.changes).to.deep.equal({ folder_id: [first.id, folder.id] });

    // a refused write leaves no entry
    const before = (await entries(`resource=dms/document&record_id=${doc.id}`)).length;
    expect((await admin.patch(`/api/dms/document/${doc.id}`, { folder_id: 999999 })).status).to.equal(400);
    expect(await entries(`resource=dms/document&record_id=${doc.id}`)).to.have.length(before);
  });

  it('never records a password, and filters by user, action and time', async () => {
    const { admin, adminId } = suite();
    const user = await makeUser();
    expect((await admin.patch(`/api/user/${user.id}`, { password: 'another-horse-2', first_name: 'Ada' })).status).to.equal(200);
    const trail = await entries(`resource=user&record_id=${user.id}`);
    // the reset is a security event of its own (issue 25), with no value
    expect(trail.map((e) => e.action)).to.deep.equal(['password_reset', 'update', 'create']);
    expect(JSON.stringify(trail.slice(1))).not.to.match(/password|scrypt|horse/);
    expect(trail[0].changes).to.deep.equal({});
    expect(trail[1].changes).to.deep.equal({ first_name: [null, 'Ada'] });

    const since = trail[2].at;
    const mine = await entries(`user=${adminId}&action=update&at_from=${since}&resource=user`);
    expect(mine.map((e) => e.record_id)).to.include(user.id);
    expect(mine.every((e) => e.user === adminId && e.action === 'update' && e.at >= since)).to.equal(true);
    expect(await entries(`record_id=${user.id}&resource=user&at_to=2000-01-01T00:00:00Z`)).to.deep.equal([]);
  });

  it("records no change and sends nothing for a sign-in (bookkeeping: last_login), but does for a real change of the user (issue 22.7)", async () => {
    const { admin, service } = suite();
    const subscription = await created(admin, '/api/webhook/subscription', { url: 'https://hooks.example.com/users', events: ['users.user.updated'], secret: 'a-secret-of-sixteen-or-more' });
    const queued = async () => (await admin.get(`/api/webhook/delivery?subscription=${subscription.id}`)).body as any[];
    const user = await makeUser();
    expect((await new SessionClient(service.url).login(user.username, 'correct-horse-1')).status).to.equal(200);
    expect((await admin.get(`/api/user/${user.id}`)).body.last_login).to.be.a('string');
    // the sign-in is a security event (issue 25), not a change of the user
    expect((await entries(`resource=user&record_id=${user.id}`)).map((e) => e.action)).to.deep.equal(['sign_in', 'create']);
    expect(await queued()).to.deep.equal([]);

    expect((await admin.patch(`/api/user/${user.id}`, { last_name: 'Lovelace' })).status).to.equal(200);
    const [changed] = await entries(`resource=user&record_id=${user.id}`);
    expect(changed).to.include({ action: 'update' });
    expect(changed.changes).to.deep.equal({ last_name: [null, 'Lovelace'] });
    const [event] = await queued();
    expect(event).to.include({ event: 'users.user.updated', record_id: user.id });
  });

  it('answers 400 for bad filters, 405 for writes, 403 without audit.view_entry', async () => {
    const { admin } = suite();
    const bad = await admin.get('/api/audit?record_id=x&action=rename&at_from=yesterday');
    expect(bad.status).to.equal(400);
    expect(Object.keys(bad.body).sort()).to.deep.equal(['action', 'at_from', 'record_id']);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const path = method === 'POST' ? '/api/audit' : '/api/audit/1';
      const res = await admin.request(method, path, { body: {} });
      expect(res.status, `${method} ${path}`).to.equal(405);
    }
    const nobody = await makeUser();
    expect((await nobody.client.get('/api/audit')).status).to.equal(403);
  });

  it('shows others only entries of records they can view now', async () => {
    const { admin } = suite();
    const reader = await makeUser({ permissions: ['audit.view_entry', 'issues.view_tracker'] });
    const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
    const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
    const seen = async (id: number) => (await reader.client.get(`/api/audit?resource=issue/tracker&record_id=${id}`)).body as any[];
    expect(await seen(open.id)).to.have.length(1);
    expect(await seen(secret.id)).to.deep.equal([]);
    const [hidden] = await entries(`resource=issue/tracker&record_id=${secret.id}`);
    expect((await reader.client.get(`/api/audit/${hidden.id}`)).status).to.equal(404);
    // no view permission on issues: none of their entries
    const issue = await created(admin, '/api/issue/issue', { tracker_id: open.id, title: 'not for the reader' });
    expect((await reader.client.get(`/api/audit?resource=issue/issue&record_id=${issue.id}`)).body).to.deep.equal([]);
  });

  it("hides an entry from whom could not see the record as the entry recorded it, though they can see it now", async () => {
    const { admin } = suite();
    const reader = await makeUser({ permissions: ['audit.view_entry', 'issues.view_tracker', 'issues.view_issue'] });
    const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
    const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
    const issue = await created(admin, '/api/issue/issue', { tracker_id: secret.id, title: 'ACQUISITION of Foo Corp' });
    const patch = async (body: object) => expect((await admin.patch(`/api/issue/issue/${issue.id}`, body)).status).to.equal(200);
    await patch({ title: 'price 12M' });
    await patch({ tracker_id: open.id });
    await patch({ title: 'Vendor review' });

    const all = await entries(`resource=issue/issue&record_id=${issue.id}`);
    expect(all).to.have.length(4);
    const seen = (await reader.client.get(`/api/audit?resource=issue/issue&record_id=${issue.id}`)).body as any[];
    // the move is hidden too: the record it starts from was confidential; 'price 12M' was the title after it
    expect(seen.map((e) => e.changes)).to.deep.equal([{ title: ['price 12M', 'Vendor review'] }]);
    expect(JSON.stringify((await reader.client.get('/api/audit?resource=issue/issue')).body)).not.to.match(/ACQUISITION/);
    expect((await reader.client.get(`/api/audit/${all[3].id}`)).status).to.equal(404);
  });

  it('shows none of the entries of a record the caller cannot see now, nor of one that was deleted unseen by them', async () => {
    const { admin } = suite();
    const reader = await makeUser({ permissions: ['audit.view_entry', 'issues.view_tracker', 'issues.view_issue'] });
    const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
    const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
    const seen = async (id: number) => ((await reader.client.get(`/api/audit?resource=issue/issue&record_id=${id}`)).body as any[]).map((e) => e.action);
    const hidden = await created(admin, '/api/issue/issue', { tracker_id: open.id, title: 'public at first' });
    expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { tracker_id: secret.id })).status).to.equal(200);
    expect(await seen(hidden.id)).to.deep.equal([]);

    // a deleted record: as its delete entry left it
    const gone = await created(admin, '/api/issue/issue', { tracker_id: open.id, title: 'deleted in the open' });
    expect((await admin.delete(`/api/issue/issue/${gone.id}`)).status).to.equal(204);
    expect(await seen(gone.id)).to.deep.equal(['delete', 'create']);
    expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { tracker_id: open.id })).status).to.equal(200);
    expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { tracker_id: secret.id })).status).to.equal(200);
    expect((await admin.delete(`/api/issue/issue/${hidden.id}`)).status).to.equal(204);
    expect(await seen(hidden.id)).to.deep.equal([]);
    expect(await entries(`resource=issue/issue&record_id=${hidden.id}`)).to.have.length(5);
  });

  it('judges a record that inherited its access by the parent it had then', async () => {
    const { admin } = suite();
    const reader = await makeUser({ permissions: ['audit.view_entry', 'dms.view_folder'] });
    const parent = await created(admin, '/api/dms/folder', { title: unique('protected'), visibility: 'protected' });
    const folder = await created(admin, '/api/dms/folder', { title: 'Layoffs 2027', parent_id: parent.id, inherit_permissions: true });
    const patch = async (body: object) => expect((await admin.patch(`/api/dms/folder/${folder.id}`, body)).status).to.equal(200);
    await patch({ inherit_permissions: false });
    await patch({ title: 'Planning' });
    const seen = (await reader.client.get(`/api/audit?resource=dms/folder&record_id=${folder.id}`)).body as any[];
    expect(seen.map((e) => e.changes)).to.deep.equal([{ title: ['Layoffs 2027', 'Planning'] }]);
  });

  it('hides from others an entry that kept no values of its record (written before entries did)', async () => {
    const { admin, service } = suite();
    const reader = await makeUser({ permissions: ['audit.view_entry', 'kpi.view_kpi'] });
    // a KPI without a folder is seen by all: a record of no values would pass the rule too
    const kpi = await created(admin, '/api/kpi/kpi', { title: unique('kpi') });
    const [{ id }] = await service.db('audit_entries').insert({ action: 'update', resource: 'kpi/kpi', record_id: kpi.id, changes: { title: ['a', 'b'] } }).returning('id');
    expect((await reader.client.get(`/api/audit?resource=kpi/kpi&record_id=${kpi.id}`)).body).to.have.length(1);
    expect((await reader.client.get(`/api/audit/${id}`)).status).to.equal(404);
    expect((await admin.get(`/api/audit/${id}`)).status).to.equal(200);
  });

  it('is append-only', async () => {
    const { service } = suite();
    let refused: unknown;
    await service.db('audit_entries').update({ action: 'create' }).catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/append-only/);
  });
});
