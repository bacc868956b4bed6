/** The issue module end to end: states (spec 3, CONTRACT 8), categories, links, delete rules. */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created } from './support/fixtures.js';

const ISSUE_STATES = ['new', 'pending', 'accepted', 'active', 'effectiveness_check', 'resolved', 'rejected'];
const ISSUE_MOVES: Record<string, string[]> = {
  new: ['pending', 'rejected'],
  pending: ['accepted', 'rejected'],
  accepted: ['active', 'rejected'],
  active: ['effectiveness_check', 'rejected'],
  effectiveness_check: ['resolved', 'rejected'],
  resolved: [],
  rejected: [],
};
/** The shortest path of allowed moves from new to each state. */
const PATH_TO: Record<string, string[]> = {
  new: [],
  pending: ['pending'],
  accepted: ['pending', 'accepted'],
  active: ['pending', 'accepted', 'active'],
  effectiveness_check: ['pending', 'accepted', 'active', 'effectiveness_check'],
  resolved: ['pending', 'accepted', 'active', 'effectiveness_check', 'resolved'],
  rejected: ['rejected'],
};

describe('issue module', () => {
  let tracker: any;
  before(async () => {
    tracker = await created(suite().admin, '/api/issue/tracker', { title: 'Issue module', description: 'Flows' });
  });

  async function issueIn(state: string): Promise<any> {
    const { admin } = suite();
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: `In ${state}` });
    for (const step of PATH_TO[state]!) {
      const res = await admin.patch(`/api/issue/issue/${issue.id}`, { state: step });
      expect(res.status, res.text).to.equal(200);
    }
    return issue;
  }

  describe('issue states', () => {
    for (const from of ISSUE_STATES) {
      for (const to of ISSUE_STATES) {
        if (from === to) continue;
        const allowed = ISSUE_MOVES[from]!.includes(to);
        it(`${from} → ${to} is ${allowed ? 'allowed' : 'refused'}`, async () => {
          const issue = await issueIn(from);
          const res = await suite().admin.patch(`/api/issue/issue/${issue.id}`, { state: to });
          if (allowed) {
            expect(res.status, res.text).to.equal(200);
            expect(res.body.state).to.equal(to);
          } else {
            expect(res.status).to.equal(400);
            expect(res.body).to.deep.equal({ state: [`Transition from "${from}" to "${to}" is not allowed.`] });
          }
        });
      }
    }

    it('treats a move to the current state as a no-op', async () => {
      const issue = await issueIn('pending');
      const res = await suite().admin.patch(`/api/issue/issue/${issue.id}`, { state: 'pending' });
      expect(res.status).to.equal(200);
      const log = await suite().admin.get(`/api/issue/issue/${issue.id}/transitions`);
      expect(log.body.map((m: any) => m.to)).to.deep.equal(['new', 'pending']);
    });

    it('accepts only new on create, and defaults to it', async () => {
      const { admin } = suite();
      expect((await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'Default' })).state).to.equal('new');
      expect((await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'Explicit', state: 'new' })).state).to.equal('new');
      const res = await admin.post('/api/issue/issue', { tracker_id: tracker.id, title: 'Jump', state: 'active' });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ state: ['"active" is not a valid initial state; use one of: new.'] });
    });

    it('records every change: who, when, from, to', async () => {
      const issue = await issueIn('accepted');
      const log = await suite().admin.get(`/api/issue/issue/${issue.id}/transitions`);
      expect(log.status).to.equal(200);
      expect(log.body.map((m: any) => [m.from, m.to])).to.deep.equal([
        [null, 'new'],
        ['new', 'pending'],
        ['pending', 'accepted'],
      ]);
      for (const m of log.body) {
        expect(m.field).to.equal('state');
        expect(m.changed_by).to.equal(suite().adminId);
        expect(m.changed_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
    });

    it('refuses a state move inside a PUT too', async () => {
      const issue = await issueIn('new');
      const res = await suite().admin.put(`/api/issue/issue/${issue.id}`, { ...issue, state: 'resolved' });
      expect(res.status).to.equal(400);
    });
  });

  describe('tracker states (CONTRACT 8)', () => {
    const moves: [string, string, boolean][] = [
      ['draft', 'approved', true],
      ['draft', 'archived', true],
      ['approved', 'archived', true],
      ['archived', 'approved', true],
      ['approved', 'draft', false],
      ['archived', 'draft', false],
    ];
    for (const [from, to, allowed] of moves) {
      it(`${from} → ${to} is ${allowed ? 'allowed' : 'refused'}`, async () => {
        const { admin } = suite();
        const t = await created(admin, '/api/issue/tracker', { title: 'States', state: from === 'archived' ? 'draft' : from });
        if (from === 'archived') expect((await admin.patch(`/api/issue/tracker/${t.id}`, { state: 'archived' })).status).to.equal(200);
        const res = await admin.patch(`/api/issue/tracker/${t.id}`, { state: to });
        expect(res.status, res.text).to.equal(allowed ? 200 : 400);
        if (!allowed) expect(res.body.state).to.deep.equal([`Transition from "${from}" to "${to}" is not allowed.`]);
      });
    }
    it('is created as draft or approved, never archived', async () => {
      const { admin } = suite();
      expect((await created(admin, '/api/issue/tracker', { title: 'x' })).state).to.equal('draft');
      expect((await created(admin, '/api/issue/tracker', { title: 'x', state: 'approved' })).state).to.equal('approved');
      expect((await admin.post('/api/issue/tracker', { title: 'x', state: 'archived' })).status).to.equal(400);
    });
  });

  describe('categories and links', () => {
    it('creates a category answering id, tracker, title, color', async () => {
      const res = await suite().admin.post('/api/issue/category', { tracker_id: tracker.id, title: 'Scope:Value', color: 'green darken-1' });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ tracker: tracker.id, title: 'Scope:Value', color: 'green darken-1' });
      expect(res.body.id).to.be.a('number');
    });

    it("refuses another tracker's category, stores duplicate ids once, and sorts ids", async () => {
      const { admin } = suite();
      const other = await created(admin, '/api/issue/tracker', { title: 'Other' });
      const mine1 = await created(admin, '/api/issue/category', { tracker_id: tracker.id, title: 'Mine 1' });
      const mine2 = await created(admin, '/api/issue/category', { tracker_id: tracker.id, title: 'Mine 2' });
      const theirs = await created(admin, '/api/issue/category', { tracker_id: other.id, title: 'Theirs' });
      const bad = await admin.post('/api/issue/issue', { tracker_id: tracker.id, title: 'x', category_ids: [mine1.id, theirs.id] });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({ category_ids: [`Category ${theirs.id} does not belong to tracker ${tracker.id}.`] });
      const ok = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'x', category_ids: [mine2.id, mine1.id, mine2.id] });
      expect(ok.categories).to.deep.equal([mine1.id, mine2.id]);
      const moved = await admin.patch(`/api/issue/issue/${ok.id}`, { tracker_id: other.id });
      expect(moved.status).to.equal(400);
      expect(moved.body.category_ids[0]).to.match(/does not belong to tracker/);
      // the parent named is the one the record keeps, read with the refusal
      const linked = await admin.patch(`/api/issue/issue/${ok.id}`, { category_ids: [theirs.id] });
      expect([linked.status, linked.body]).to.deep.equal([400, { category_ids: [`Category ${theirs.id} does not belong to tracker ${tracker.id}.`] }]);
      const movedWithCategories = await admin.patch(`/api/issue/issue/${ok.id}`, { tracker_id: other.id, category_ids: [theirs.id] });
      expect(movedWithCategories.status).to.equal(200);
      expect(movedWithCategories.body.categories).to.deep.equal([theirs.id]);
    });

    it('writes many-to-many lists in the same transaction as the record', async () => {
      const { admin } = suite();
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'Tx', contributor_ids: [suite().adminId] });
      const res = await admin.patch(`/api/issue/issue/${issue.id}`, { title: 'Tx changed', contributor_ids: [suite().adminId, 999999] });
      expect(res.status).to.equal(400);
      const after = (await admin.get(`/api/issue/issue/${issue.id}`)).body;
      expect(after.title).to.equal('Tx');
      expect(after.contributors).to.deep.equal([suite().adminId]);
      const cleared = await admin.patch(`/api/issue/issue/${issue.id}`, { contributor_ids: [] });
      expect(cleared.body.contributors).to.deep.equal([]);
    });

    it('PUT needs every required field, and keeps optional fields that are not sent', async () => {
      const { admin } = suite();
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'Put', description: 'kept', deadline: '2026-12-24' });
      const missing = await admin.put(`/api/issue/issue/${issue.id}`, { title: 'Put 2' });
      expect(missing.status).to.equal(400);
      expect(missing.body).to.deep.equal({ tracker_id: ['This field is required.'] });
      const put = await admin.put(`/api/issue/issue/${issue.id}`, { tracker_id: tracker.id, title: 'Put 2' });
      expect(put.status).to.equal(200);
      expect(put.body).to.include({ title: 'Put 2', description: 'kept', deadline: '2026-12-24' });
    });
  });

  describe('delete rules', () => {
    it('protect: a tracker with issues answers 409 and stays', async () => {
      const { admin } = suite();
      const t = await created(admin, '/api/issue/tracker', { title: 'Protected' });
      for (let i = 0; i < 3; i++) await created(admin, '/api/issue/issue', { tracker_id: t.id, title: `i${i}` });
      const res = await admin.delete(`/api/issue/tracker/${t.id}`);
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({ detail: `Cannot delete tracker ${t.id}: referenced by 3 issue records.` });
      expect((await admin.get(`/api/issue/tracker/${t.id}`)).status).to.equal(200);
    });

    it('cascade: deleting a tracker deletes its categories; deleting a category unlinks it', async () => {
      const { admin } = suite();
      const t = await created(admin, '/api/issue/tracker', { title: 'Cascade' });
      const c1 = await created(admin, '/api/issue/category', { tracker_id: t.id, title: 'c1' });
      expect((await admin.delete(`/api/issue/tracker/${t.id}`)).status).to.equal(204);
      expect((await admin.get(`/api/issue/category/${c1.id}`)).status).to.equal(404);

      const c2 = await created(admin, '/api/issue/category', { tracker_id: tracker.id, title: 'c2' });
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'linked', category_ids: [c2.id] });
      expect((await admin.delete(`/api/issue/category/${c2.id}`)).status).to.equal(204);
      expect((await admin.get(`/api/issue/issue/${issue.id}`)).body.categories).to.deep.equal([]);
    });

    it('set null: deleting the assigned user clears the assignment', async () => {
      const { admin } = suite();
      const user = await created(admin, '/api/user', { username: `gone-${Date.now()}` });
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'assigned', assigned_user_id: user.id });
      expect(issue.assigned_user).to.equal(user.id);
      expect((await admin.delete(`/api/user/${user.id}`)).status).to.equal(204);
      expect((await admin.get(`/api/issue/issue/${issue.id}`)).body.assigned_user).to.equal(null);
    });

    it('deleting answers 204 with an empty body, and the record is gone', async () => {
      const { admin } = suite();
      const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'to delete' });
      const res = await admin.delete(`/api/issue/issue/${issue.id}`);
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect((await admin.delete(`/api/issue/issue/${issue.id}`)).status).to.equal(404);
    });
  });

  it('derives classification from the tracker visibility', async () => {
    const { admin } = suite();
    for (const [visibility, classification] of [['normal', 'official'], ['protected', 'confidential'], ['confidential', 'secret']]) {
      const t = await created(admin, '/api/issue/tracker', { title: `V ${visibility}`, visibility, admin_ids: [suite().adminId] });
      const issue = await created(admin, '/api/issue/issue', { tracker_id: t.id, title: 'c' });
      expect(issue.classification).to.equal(classification);
    }
  });
});
