/**
 * History and recovery: link changes in the audit trail and webhook events, revisions with
 * restore through the normal write path, the trash, and who may see each.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { SessionClient } from './support/browser-session.js';
import { pruneAudit, purgeTrash } from '../engine/history/retention.js';

const audit = async (query: string) => {
  const res = await suite().admin.get(`/api/audit?${query}`);
  expect(res.status, res.text).to.equal(200);
  return res.body as any[];
};

async function trackerWithCategories(n: number) {
  const { admin } = suite();
  const tracker = await created(admin, '/api/issue/tracker', { title: unique('history') });
  const categories = [];
  for (let i = 0; i < n; i++) categories.push(await created(admin, '/api/issue/category', { title: unique('cat'), tracker_id: tracker.id }));
  return { tracker, ids: categories.map((c) => c.id as number) };
}

describe('history and recovery', () => {
  describe('link capture', () => {
    it('records a group membership added and removed as group_ids [old, new], in /api/audit and as webhook events', async () => {
      const { admin } = suite();
      const subscription = await created(admin, '/api/webhook/subscription', { url: 'https://hooks.example.com/groups', events: ['users.user.updated'], secret: 'a-secret-of-sixteen-or-more' });
      const group = await created(admin, '/api/customgroup', { name: unique('members') });
      const user = await makeUser();
      expect((await admin.patch(`/api/user/${user.id}`, { group_ids: [group.id] })).status).to.equal(200);
      expect((await admin.patch(`/api/user/${user.id}`, { group_ids: [] })).status).to.equal(200);

      const trail = await audit(`resource=user&record_id=${user.id}&action=update`);
      expect(trail.map((e) => e.changes)).to.deep.equal([{ group_ids: [[group.id], []] }, { group_ids: [[], [group.id]] }]);
      // the group's side of the same join table
      const members = await audit(`resource=customgroup&record_id=${group.id}&action=update`);
      expect(members.map((e) => e.changes)).to.deep.equal([{ user_ids: [[user.id], []] }, { user_ids: [[], [user.id]] }]);

      const events = (await admin.get(`/api/webhook/delivery?subscription=${subscription.id}`)).body as any[];
      const mine = events.filter((e) => e.record_id === user.id);
      expect(mine.map((e) => e.event)).to.deep.equal(['users.user.updated', 'users.user.updated']);
    });

    it('folds link changes into the entry of the same write: one update with fields and links', async () => {
      const { admin } = suite();
      const { tracker, ids } = await trackerWithCategories(2);
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'linked', category_ids: [ids[0]] });
      expect((await admin.patch(`/api/issue/issue/${issue.id}`, { title: 'relinked', category_ids: [ids[1], ids[0]] })).status).to.equal(200);
      const [changed, made] = await audit(`resource=issue/issue&record_id=${issue.id}`);
      expect(made.changes).to.include({ title: 'linked' });
      expect(made.changes.category_ids).to.deep.equal([ids[0]]);
      expect(changed.changes).to.deep.equal({ title: ['linked', 'relinked'], category_ids: [[ids[0]], [...ids].sort((a, b) => a - b)] });
    });
  });

  describe('security events', () => {
    const PASSWORD = 'correct-horse-1';

    it('records sign-ins, a failed one, a self-service password change, sessions it ended and a sign-out, without any secret', async () => {
      const { service } = suite();
      const user = await makeUser({ permissions: ['users.view_user', 'users.change_user'] });
      const [mine, other] = [new SessionClient(service.url), new SessionClient(service.url)];
      expect((await mine.login(user.username, 'wrong-password')).status).to.equal(400);
      for (const b of [mine, other]) expect((await b.login(user.username, PASSWORD)).status).to.equal(200);
      const changed = await mine.request('PATCH', `/api/user/${user.id}`, { body: { password: 'a-brand-new-one' }, csrf: true, headers: { 'X-Request-Id': 'self-change' } });
      expect(changed.status, changed.text).to.equal(200);
      expect((await mine.request('POST', '/api/auth/logout', { csrf: true })).status).to.equal(204);

      const trail = await audit(`resource=user&record_id=${user.id}`);
      const security = trail.filter((e) => !['create', 'update', 'delete'].includes(e.action));
      expect(security.map((e) => [e.action, e.user])).to.deep.equal([
        ['sign_out', user.id],
        ['session_ended', user.id],
        ['password_changed', user.id],
        ['sign_in', user.id],
        ['sign_in', user.id],
        ['sign_in_failed', null],
        // made with its group: a grant too
        ['groups_changed', suite().adminId],
      ]);
      expect(security[1]).to.include({ request_id: 'self-change' });
      expect(security[1].changes).to.deep.equal({ sessions: 1 });
      expect(security.at(-2).changes).to.have.property('address').that.is.a('string');
      expect(JSON.stringify(trail)).not.to.match(/horse|brand-new|scrypt|password"/);
      expect((await audit(`action=sign_in_failed&record_id=${user.id}`)).map((e) => e.id)).to.deep.equal([security.at(-2).id]);
    });

    it('records a password reset by an administrator (by whom, for whom) without the password, and token, superuser and group changes', async () => {
      const { admin, adminId } = suite();
      const user = await makeUser();
      const group = await created(admin, '/api/customgroup', { name: unique('grants') });
      expect((await admin.patch(`/api/user/${user.id}`, { password: 'reset-by-admin-1' })).status).to.equal(200);
      expect((await admin.patch(`/api/user/${user.id}`, { is_superuser: true, group_ids: [group.id] })).status).to.equal(200);
      const token = await user.client.post('/api/auth/tokens', { name: 'integration' });
      expect(token.status).to.equal(201);
      expect((await user.client.delete(`/api/auth/tokens/${token.body.id}`)).status).to.equal(204);

      const trail = await audit(`resource=user&record_id=${user.id}`);
      const [reset] = trail.filter((e) => e.action === 'password_reset');
      expect(reset).to.include({ user: adminId, record_id: user.id });
      expect(reset.changes).to.deep.equal({});
      expect(JSON.stringify(trail)).not.to.match(/reset-by-admin|scrypt/);
      expect(JSON.stringify(trail)).not.to.include(token.body.token);
      const byAction = (action: string) => trail.filter((e) => e.action === action).map((e) => e.changes);
      expect(byAction('superuser_changed')).to.deep.equal([{ is_superuser: [false, true] }]);
      expect(byAction('groups_changed')).to.deep.equal([{ group_ids: [[], [group.id]] }]);
      expect(byAction('token_created')).to.deep.equal([{ token: token.body.id, name: 'integration' }]);
      expect(byAction('token_revoked')).to.deep.equal([{ token: token.body.id }]);
    });
  });

  describe('revisions', () => {
    it('lists versions newest first and restores the first one (fields and categories) as a new version', async () => {
      const { admin, adminId } = suite();
      const { tracker, ids } = await trackerWithCategories(3);
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'one', description: 'first text', category_ids: [ids[0]] });
      const path = `/api/issue/issue/${issue.id}`;
      expect((await admin.patch(path, { title: 'two', category_ids: [ids[1]] })).status).to.equal(200);
      expect((await admin.patch(path, { description: 'second text' })).status).to.equal(200);
      expect((await admin.patch(path, { title: 'three', category_ids: [ids[1], ids[2]] }, { headers: { 'X-Request-Id': 'history-third' } })).status).to.equal(200);

      const history = await admin.get(`${path}/history`);
      expect(history.status, history.text).to.equal(200);
      const versions = history.body as any[];
      expect(versions.map((v) => v.action)).to.deep.equal(['update', 'update', 'update', 'create']);
      expect(versions[0]).to.include({ user: adminId, request_id: 'history-third' });
      expect(versions.map((v) => v.values.title)).to.deep.equal(['three', 'two', 'two', 'one']);
      expect(versions.map((v) => v.values.category_ids)).to.deep.equal([[ids[1], ids[2]], [ids[1]], [ids[1]], [ids[0]]]);
      expect(versions[3].values).to.include({ description: 'first text', state: 'new' });

      const first = versions[3].version;
      const restored = await admin.post(`${path}/history/${first}/restore`, {});
      expect(restored.status, restored.text).to.equal(200);
      expect(restored.body).to.include({ title: 'one', description: 'first text' });
      expect(restored.body.categories).to.deep.equal([ids[0]]);
      const after = (await admin.get(`${path}/history`)).body as any[];
      expect(after).to.have.length(5);
      expect(after[0].values).to.deep.equal(versions[3].values);
    });

    it('refuses a restore that breaks a rule (a state move the machine forbids) with 400, and writes nothing', async () => {
      const { admin } = suite();
      const { tracker } = await trackerWithCategories(0);
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'moving' });
      const path = `/api/issue/issue/${issue.id}`;
      expect((await admin.patch(path, { state: 'pending' })).status).to.equal(200);
      expect((await admin.patch(path, { state: 'accepted' })).status).to.equal(200);
      const versions = (await admin.get(`${path}/history`)).body as any[];
      const refused = await admin.post(`${path}/history/${versions.at(-1).version}/restore`, {});
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body).to.have.property('state');
      expect((await admin.get(`${path}/history`)).body).to.have.length(versions.length);
      expect((await admin.post(`${path}/history/999999999/restore`, {})).status).to.equal(404);
    });

    it('shows nothing of a record the caller cannot see, and only the versions they could see', async () => {
      const { admin } = suite();
      const reader = await makeUser({ permissions: ['issues.view_tracker', 'issues.view_issue', 'issues.change_issue'] });
      const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
      const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
      const hidden = await created(admin, '/api/issue/issue', { tracker_id: secret.id, title: 'not yours' });
      expect((await reader.client.get(`/api/issue/issue/${hidden.id}/history`)).status).to.equal(404);
      const [made] = (await admin.get(`/api/issue/issue/${hidden.id}/history`)).body as any[];
      expect((await reader.client.post(`/api/issue/issue/${hidden.id}/history/${made.version}/restore`, {})).status).to.equal(404);

      expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { title: 'moved out' })).status).to.equal(200);
      expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { tracker_id: open.id })).status).to.equal(200);
      expect((await admin.patch(`/api/issue/issue/${hidden.id}`, { title: 'public now' })).status).to.equal(200);
      const seen = (await reader.client.get(`/api/issue/issue/${hidden.id}/history`)).body as any[];
      expect(seen.map((v) => v.values.title)).to.deep.equal(['public now']);
      expect(JSON.stringify(seen)).not.to.match(/not yours/);
    });
  });

  describe('trash', () => {
    it('trashes a deleted issue: 404 everywhere, listed in the trash, restorable with its categories', async () => {
      const { admin, adminId } = suite();
      const { tracker, ids } = await trackerWithCategories(2);
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: unique('trashed'), category_ids: ids });
      expect((await admin.delete(`/api/issue/issue/${issue.id}`)).status).to.equal(204);
      expect((await admin.get(`/api/issue/issue/${issue.id}`)).status).to.equal(404);
      expect((await admin.get(`/api/issue/issue?tracker=${tracker.id}`)).body).to.deep.equal([]);
      expect((await admin.patch(`/api/issue/issue/${issue.id}`, { title: 'x' })).status).to.equal(404);

      const listed = (await admin.get(`/api/trash?resource=issue/issue&deleted_by=${adminId}`)).body as any[];
      const entry = listed.find((e) => e.record_id === issue.id);
      expect(entry).to.include({ resource: 'issue/issue', deleted_by: adminId });
      expect(entry.values).to.include({ title: issue.title });
      expect(entry.links.category_ids).to.deep.equal(ids);
      expect((await admin.get(`/api/trash/${entry.id}`)).body).to.deep.equal(entry);

      const restored = await admin.post(`/api/trash/${entry.id}/restore`, {});
      expect(restored.status, restored.text).to.equal(200);
      expect(restored.body).to.include({ id: issue.id, title: issue.title });
      expect(restored.body.categories).to.deep.equal(ids);
      expect((await admin.get(`/api/trash/${entry.id}`)).status).to.equal(404);
      expect((await admin.get(`/api/issue/issue/${issue.id}`)).status).to.equal(200);
    });

    it('answers 409 naming the field when a unique value was taken since or a referenced record is gone, and purges', async () => {
      const { admin, service } = suite();
      const { tracker } = await trackerWithCategories(0);
      const [gone, taken] = [await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'loses its tracker' }), await created(admin, '/api/dms/folder', { title: unique('folder') })];
      for (const path of [`/api/issue/issue/${gone.id}`, `/api/dms/folder/${taken.id}`]) expect((await admin.delete(path)).status).to.equal(204);
      const entryOf = async (resource: string, id: number) => ((await admin.get(`/api/trash?resource=${resource}&record_id=${id}`)).body as any[])[0];
      // the tracker could go once its issue was trashed; another folder has taken the uuid
      expect((await admin.delete(`/api/issue/tracker/${tracker.id}`)).status).to.equal(204);
      const other = await created(admin, '/api/dms/folder', { title: unique('folder') });
      await service.db('dms_folder').where({ id: other.id }).update({ uuid: taken.uuid });

      const noTracker = await admin.post(`/api/trash/${(await entryOf('issue/issue', gone.id)).id}/restore`, {});
      expect(noTracker.status, noTracker.text).to.equal(409);
      expect(noTracker.body.detail).to.include('`tracker_id`');
      const entry = await entryOf('dms/folder', taken.id);
      const duplicate = await admin.post(`/api/trash/${entry.id}/restore`, {});
      expect(duplicate.status, duplicate.text).to.equal(409);
      expect(duplicate.body.detail).to.include('`uuid`');
      expect((await admin.get(`/api/dms/folder/${taken.id}`)).status).to.equal(404);

      expect((await admin.delete(`/api/trash/${entry.id}`)).status).to.equal(204);
      expect((await admin.get(`/api/trash/${entry.id}`)).status).to.equal(404);
    });

    it('shows a trashed record only to whom could see it, and lets only whom may delete it restore or purge it', async () => {
      const { admin } = suite();
      const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
      const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
      const reader = await makeUser({ permissions: ['issues.view_tracker', 'issues.view_issue'] });
      const hidden = await created(admin, '/api/issue/issue', { tracker_id: secret.id, title: 'hidden' });
      const visible = await created(admin, '/api/issue/issue', { tracker_id: open.id, title: 'visible' });
      for (const i of [hidden, visible]) expect((await admin.delete(`/api/issue/issue/${i.id}`)).status).to.equal(204);
      const listed = (await reader.client.get('/api/trash?resource=issue/issue')).body as any[];
      expect(listed.map((e) => e.record_id)).to.include(visible.id).and.not.include(hidden.id);
      const [hiddenEntry] = (await admin.get(`/api/trash?record_id=${hidden.id}&resource=issue/issue`)).body as any[];
      expect((await reader.client.get(`/api/trash/${hiddenEntry.id}`)).status).to.equal(404);
      expect((await reader.client.post(`/api/trash/${hiddenEntry.id}/restore`, {})).status).to.equal(404);
      const visibleEntry = listed.find((e) => e.record_id === visible.id);
      expect((await reader.client.post(`/api/trash/${visibleEntry.id}/restore`, {})).status).to.equal(403);
      expect((await reader.client.delete(`/api/trash/${visibleEntry.id}`)).status).to.equal(403);
    });

    it('keeps protect rules: a record still referenced is not trashed (409)', async () => {
      const { admin } = suite();
      const { tracker } = await trackerWithCategories(0);
      await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'holds the tracker' });
      expect((await admin.delete(`/api/issue/tracker/${tracker.id}`)).status).to.equal(409);
    });
  });

  describe('retention', () => {
    it('purges a trashed issue after the retention period, keeping younger entries, in batches', async () => {
      const { admin, service } = suite();
      const { tracker } = await trackerWithCategories(0);
      const issues = [];
      for (const title of ['old one', 'old two', 'young']) issues.push(await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title }));
      for (const i of issues) expect((await admin.delete(`/api/issue/issue/${i.id}`)).status).to.equal(204);
      const entries = (await admin.get(`/api/trash?resource=issue/issue&deleted_by=${suite().adminId}&limit=1000`)).body as any[];
      const ids = issues.map((i) => entries.find((e) => e.record_id === i.id).id as number);
      await service.db('trash').whereIn('id', ids.slice(0, 2)).update({ deleted_at: service.db.raw(`now() - interval '31 days'`) });

      expect(await purgeTrash(service.db, 30, 1)).to.equal(2);
      expect((await admin.get(`/api/trash/${ids[0]}`)).status).to.equal(404);
      expect((await admin.get(`/api/trash/${ids[1]}`)).status).to.equal(404);
      expect((await admin.get(`/api/trash/${ids[2]}`)).status).to.equal(200);
      expect((await admin.get(`/api/issue/issue/${issues[0].id}`)).status).to.equal(404);
    });

    it('prunes audit entries older than AUDIT_RETENTION_DAYS only, and the trail refuses any other delete or change', async () => {
      const { service } = suite();
      const resource = unique('retention');
      const [old, young] = [400, 10].map((days) => ({ at: service.db.raw(`now() - make_interval(days => ?)`, [days]), action: 'update', resource, record_id: 1, changes: '{}' }));
      await service.db('audit_entries').insert([old, old, young]);
      expect(await pruneAudit(service.db, 365, 1)).to.equal(2);
      expect((await service.db('audit_entries').where({ resource }).pluck('action')).length).to.equal(1);
      let refused: unknown;
      await service.db('audit_entries').where({ resource }).delete().catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/append-only/);
      refused = undefined;
      await service.db('audit_entries').where({ resource }).update({ changes: '{"forged": true}' }).catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/append-only/);
    });
  });
});
