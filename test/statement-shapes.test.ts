/**
 * Create and update statements are built once per shape (which fields a write sets, whether it was
 * refused, the user) and then only take each request's values (engine/crud/write-statement.ts,
 * shapedStatement). Every write below repeats a shape an earlier one built: each must still write
 * its own values, links, user and request, a refusal must not leak into the next write of its
 * shape, and a user's access rules must not leak into another's, nor a superuser's passing them
 * into the same user's writes once demoted.
 */
import { expect } from 'chai';
import type { Client } from './support/client.js';
import { created, invalidPk, makeUser, unique } from './support/fixtures.js';
import { suite } from './support/hooks.js';

interface Writer {
  client: Client;
  id: number;
}

describe('write statements built once per shape', () => {
  let tracker: number;
  let categories: number[];
  let writers: Writer[];

  before(async () => {
    const { admin, adminId } = suite();
    tracker = (await created(admin, '/api/issue/tracker', { title: unique('shapes') })).id;
    categories = [];
    for (let i = 0; i < 3; i++) categories.push((await created(admin, '/api/issue/category', { title: unique('c'), tracker_id: tracker })).id);
    const other = await makeUser({ superuser: true });
    writers = [{ client: admin, id: adminId }, { client: other.client, id: other.id }];
  });

  /** The audit entry of `action` on issue `id`: its user, request and changes. */
  const entryOf = async (id: number, action: string) =>
    (await suite().service.db('audit_entries').where({ resource: 'issue/issue', record_id: id, action }).orderBy('id', 'desc').first('user_id', 'request_id', 'changes')) as {
      user_id: number;
      request_id: string;
      changes: Record<string, unknown>;
    };

  it('creates with each request its own values, links, creator and audit entry', async () => {
    const bodies = [
      { title: 'first', category_ids: [categories[1], categories[0]] },
      { title: 'second', category_ids: [categories[2]] },
      { title: 'third', category_ids: [] },
      { title: 'fourth', category_ids: [categories[0]] },
    ];
    for (const [i, body] of bodies.entries()) {
      const writer = writers[i % 2]!;
      const res = await writer.client.post('/api/issue/issue', { ...body, tracker_id: tracker });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.title).to.equal(body.title);
      expect(res.body.categories).to.deep.equal([...body.category_ids].sort((a, b) => a! - b!));
      const row = await suite().service.db('issue_issue').where({ id: res.body.id }).first('title', 'created_by');
      expect(row).to.deep.equal({ title: body.title, created_by: writer.id });
      const entry = await entryOf(res.body.id, 'create');
      expect([entry.user_id, entry.request_id, entry.changes.title]).to.deep.equal([writer.id, res.headers.get('x-request-id'), body.title]);
    }
  });

  it('answers a refused write of a shape with its own errors, and writes the next one of that shape', async () => {
    const { admin } = suite();
    const refused = await admin.post('/api/issue/issue', { title: 'refused', tracker_id: 999_999, category_ids: [categories[0]] });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal({ tracker_id: invalidPk(999_999) });
    const written = await admin.post('/api/issue/issue', { title: 'written', tracker_id: tracker, category_ids: [categories[0]] });
    expect(written.status, written.text).to.equal(201);
    const again = await admin.post('/api/issue/issue', { title: 'refused again', tracker_id: 999_998, category_ids: [categories[1]] });
    expect(again.body).to.deep.equal({ tracker_id: invalidPk(999_998) });
    // refused by its shape (a blank title), an update sends what the valid one sends (its key): it must write nothing, and the next must write
    const path = `/api/issue/issue/${written.body.id}`;
    expect((await admin.patch(path, { tracker_id: tracker })).status).to.equal(200);
    const blank = await admin.patch(path, { title: '', tracker_id: tracker });
    expect([blank.status, blank.body]).to.deep.equal([400, { title: ['This field may not be blank.'] }]);
    const valid = await admin.patch(path, { tracker_id: tracker });
    expect([valid.status, valid.body.title]).to.deep.equal([200, 'written']);
  });

  it('updates each record with its own values, and logs each state move under its own user', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) ids.push((await created(suite().admin, '/api/issue/issue', { title: `to move ${i}`, tracker_id: tracker })).id);
    for (const [i, id] of ids.entries()) {
      const writer = writers[i]!;
      const title = await writer.client.patch(`/api/issue/issue/${id}`, { title: `moved ${i}` });
      expect([title.status, title.body.title]).to.deep.equal([200, `moved ${i}`]);
      const state = await writer.client.patch(`/api/issue/issue/${id}`, { state: 'pending' });
      expect([state.status, state.body.state], state.text).to.deep.equal([200, 'pending']);
      const log = await suite().service.db('state_changes').where({ resource: 'issue/issue', record_id: id }).orderBy('id').select('from_state', 'to_state', 'changed_by');
      expect(log).to.deep.equal([
        { from_state: null, to_state: 'new', changed_by: writers[0]!.id },
        { from_state: 'new', to_state: 'pending', changed_by: writer.id },
      ]);
      const entry = await entryOf(id, 'update');
      expect([entry.user_id, entry.request_id, entry.changes.state]).to.deep.equal([writer.id, state.headers.get('x-request-id'), ['new', 'pending']]);
    }
    // a move the workflow does not allow, in a shape that moved before, is refused
    const back = await writers[1]!.client.patch(`/api/issue/issue/${ids[0]}`, { state: 'new' });
    expect([back.status, back.body]).to.deep.equal([400, { state: ['Transition from "pending" to "new" is not allowed.'] }]);
  });

  it("refuses a user what the rules refuse them after another user's write of the same shape, and the other way round", async () => {
    const { admin } = suite();
    const permissions = ['issues.view_issue', 'issues.add_issue', 'issues.change_issue', 'issues.view_tracker'];
    const [own, other] = [await makeUser({ permissions }), await makeUser({ permissions })];
    // only its admin sees a confidential tracker, and an issue in it (nobody else made or holds it)
    const hidden = (await created(admin, '/api/issue/tracker', { title: unique('hidden'), visibility: 'confidential', admin_ids: [own.id] })).id;
    const body = (title: string) => ({ title, tracker_id: hidden });
    for (const [first, second] of [[own, other], [other, own]] as const) {
      const a = await first.client.post('/api/issue/issue', body('first'));
      const b = await second.client.post('/api/issue/issue', body('second'));
      const [seer, blind] = first === own ? [a, b] : [b, a];
      expect([seer.status, seer.body.tracker], seer.text).to.deep.equal([201, hidden]);
      expect([blind.status, blind.body]).to.deep.equal([400, { tracker_id: invalidPk(hidden) }]);
    }
    const issue = (await created(admin, '/api/issue/issue', body('shared'))).id;
    for (const [first, second] of [[own, other], [other, own]] as const) {
      const a = await first.client.patch(`/api/issue/issue/${issue}`, { title: 'patched' });
      const b = await second.client.patch(`/api/issue/issue/${issue}`, { title: 'patched' });
      const [seer, blind] = first === own ? [a, b] : [b, a];
      expect([seer.status, seer.body.title], seer.text).to.deep.equal([200, 'patched']);
      expect(blind.status, blind.text).to.equal(404);
    }
  });

  it('refuses a superuser demoted between two writes of a shape what the rules refuse a user, and grants it again once promoted', async () => {
    const { admin } = suite();
    // its permissions stay: only the visibility rules, which a superuser passes, refuse it the confidential tracker
    const user = await makeUser({ superuser: true, permissions: ['issues.view_issue', 'issues.add_issue', 'issues.change_issue', 'issues.view_tracker'] });
    const hidden = (await created(admin, '/api/issue/tracker', { title: unique('hidden'), visibility: 'confidential' })).id;
    const issue = (await created(admin, '/api/issue/issue', { title: 'kept', tracker_id: hidden })).id;
    const setSuperuser = async (is_superuser: boolean) => expect((await admin.patch(`/api/user/${user.id}`, { is_superuser })).status).to.equal(200);
    const write = async (title: string) => ({
      create: await user.client.post('/api/issue/issue', { title, tracker_id: hidden }),
      update: await user.client.patch(`/api/issue/issue/${issue}`, { title }),
    });
    const { create, update } = await write('as superuser');
    expect([create.status, update.status, update.body.title], update.text).to.deep.equal([201, 200, 'as superuser']);
    await setSuperuser(false);
    const { create: refusedCreate, update: refusedUpdate } = await write('demoted');
    expect([refusedCreate.status, refusedCreate.body]).to.deep.equal([400, { tracker_id: invalidPk(hidden) }]);
    expect(refusedUpdate.status, refusedUpdate.text).to.equal(404);
    expect((await suite().service.db('issue_issue').where({ id: issue }).first('title')).title).to.equal('as superuser');
    await setSuperuser(true);
    const { create: again, update: updatedAgain } = await write('promoted');
    expect([again.status, updatedAgain.status, updatedAgain.body.title], updatedAgain.text).to.deep.equal([201, 200, 'promoted']);
  });
});
