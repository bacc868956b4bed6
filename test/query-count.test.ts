/**
 * A list costs a constant number of SQL queries, whatever its length (no N+1); a detail with a
 * cached principal costs one; a request with a token never reads the session store; a create or an
 * update takes one statement where its resource's write path allows.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';
import { SessionClient } from './support/browser-session.js';
import { created, invalidPk, makeUser, unique, type TestUser } from './support/fixtures.js';
import { countQueries, ownQueries, queriesOf } from './support/queries.js';
import { Samples } from './support/samples.js';
import type { Client } from './support/client.js';

const registry = await loadRegistry();

describe('query count of lists', () => {
  it('is the same for a 1-row and a 500-row issue list with categories and contributors', async function () {
    this.timeout(120_000);
    const { admin, service, adminId } = suite();
    const small = await created(admin, '/api/issue/tracker', { title: unique('small') });
    const big = await created(admin, '/api/issue/tracker', { title: unique('big') });
    const categories: { id: number }[] = [];
    for (let i = 0; i < 3; i++) categories.push(await created(admin, '/api/issue/category', { tracker_id: big.id, title: `c${i}` }));
    await created(admin, '/api/issue/issue', { tracker_id: small.id, title: 'one', contributor_ids: [adminId] });
    const rows = Array.from({ length: 500 }, (_, i) => ({ tracker_id: big.id, title: `bulk ${i}`, created_by: adminId }));
    const inserted = (await service.db('issue_issue').insert(rows).returning('id')) as { id: number }[];
    await service.db('issue_issue_categories').insert(inserted.flatMap(({ id }) => categories.map((c) => ({ issue_id: id, category_id: c.id }))));
    await service.db('issue_issue_contributors').insert(inserted.map(({ id }) => ({ issue_id: id, user_id: adminId })));

    // the counts are the lists' own statements: the token's (ownQueries) may fall into any request
    const counted = async (path: string): Promise<[number, any[]]> => {
      let body: any[] = [];
      const count = (await ownQueries(async () => (body = (await admin.get(path)).body))).length;
      return [count, body];
    };
    const [one, smallList] = await counted(`/api/issue/issue?tracker=${small.id}`);
    const [many, bigList] = await counted(`/api/issue/issue?tracker=${big.id}`);
    expect(smallList).to.have.length(1);
    expect(bigList).to.have.length(500);
    expect(bigList[0].categories).to.deep.equal(categories.map((c) => c.id));
    expect(bigList[499].contributors).to.deep.equal([adminId]);
    expect(many).to.equal(one);
    // the list itself, nothing per row
    expect(one).to.equal(1);

    // related records expanded inside the same one query, whatever the number of rows
    const shape = '&expand=tracker,categories,contributors&fields=id,tracker,categories,contributors';
    const [oneExpanded, smallExpanded] = await counted(`/api/issue/issue?tracker=${small.id}${shape}`);
    const [manyExpanded, bigExpanded] = await counted(`/api/issue/issue?tracker=${big.id}${shape}`);
    expect(bigExpanded).to.have.length(500);
    expect(bigExpanded[0].tracker.title).to.equal(big.title);
    expect(bigExpanded[0].categories.map((c: any) => c.title)).to.deep.equal(['c0', 'c1', 'c2']);
    expect(bigExpanded[499].contributors.map((u: any) => u.id)).to.deep.equal([adminId]);
    expect(smallExpanded[0].tracker.id).to.equal(small.id);
    expect([oneExpanded, manyExpanded]).to.deep.equal([one, one]);
  });
});

describe('query count of a search', () => {
  it('is one statement while its matches fit in a head of 1,000 (one select list, planned for its words); with more, that one and then the whole list, which answers as an unpaged list does; the shape then runs whole until it fits again', async function () {
    this.timeout(120_000);
    const { admin, service, adminId } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('probe') });
    const word = unique('probeword').replace(/[^a-z0-9]/gi, '');
    const rows = Array.from({ length: 1001 }, (_, i) => ({ tracker_id: tracker.id, title: `${word} ${i}`, created_by: adminId }));
    await service.db('issue_issue').insert(rows);
    try {
      await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: `${word}single` });
      const listsIn = (sql: string[]) => sql.filter((s) => s.includes('"issue_issue"') && s.includes(' ilike '));

      let one: any;
      const few = listsIn(await queriesOf(async () => (one = await admin.get(`/api/issue/issue?search=${word}single&count=true`))));
      expect(one.status).to.equal(200);
      expect(one.body.map((r: any) => r.title)).to.deep.equal([`${word}single`]);
      expect(one.headers.get('x-total-count')).to.equal('1');
      expect(few, 'the probe alone').to.have.length(1);
      expect(few[0]).to.include('w_rows');

      let all: any;
      const many = listsIn(await queriesOf(async () => (all = await admin.get(`/api/issue/issue?search=${word}&count=true`))));
      expect(many, 'the probe, then the whole list').to.have.length(2);
      expect(many[0]).to.include('w_rows');
      expect(many[1]).not.to.include('w_rows');
      const unpaged = await admin.get(`/api/issue/issue?tracker=${tracker.id}&count=true`);
      expect(all.status).to.equal(200);
      expect(all.body).to.have.length(1002);
      expect(all.body).to.deep.equal(unpaged.body);
      expect(all.headers.get('x-total-count')).to.equal('1002');
      // the shape outgrew its probe: its next run is the whole list's statement, once, whatever it finds
      for (const [search, length] of [[word, 1002], [`${word}single`, 1]] as const) {
        let again: any;
        const whole = listsIn(await queriesOf(async () => (again = await admin.get(`/api/issue/issue?search=${search}&count=true`))));
        expect(again.body, search).to.have.length(length);
        expect(whole, `${search}: the whole list at once`).to.have.length(1);
        expect(whole[0], 'the statement that followed the probe').to.equal(many[1]);
      }
      // … and once a whole run fits in its first head, the shape is probed again
      const probedAgain = listsIn(await queriesOf(async () => expect((await admin.get(`/api/issue/issue?search=${word}single&count=true`)).body).to.have.length(1)));
      expect(probedAgain, 'probed again').to.have.length(1);
      expect(probedAgain[0]).to.include('w_rows');
      // a page of at most a head is one aggregate already
      const head = listsIn(await queriesOf(async () => expect((await admin.get(`/api/issue/issue?search=${word}&limit=1000`)).body).to.have.length(1000)));
      expect(head, 'a page of 1,000 fits in one head: no probe').to.have.length(1);
      expect(head[0]).not.to.include('w_rows');
    } finally {
      // the rows go again, unrecorded: other suites count issues without a deadline or a contributor, and trash entries
      await service.db.transaction(async (trx) => {
        await trx.raw(`select set_config('bms.capture', 'off', true)`);
        await trx('issue_issue').where({ tracker_id: tracker.id }).delete();
      });
    }
  });
});

describe('query count of a request with a token', () => {
  it('is one query for an issue detail once the principal is cached, two right after any principal changed', async () => {
    const { admin } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('detail') });
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'one query' });
    const reader = await makeUser({ permissions: ['issues.view_issue'] });
    for (const client of [admin, reader.client]) {
      // the first request loads the principal and notes last_used
      expect((await client.get(`/api/issue/issue/${issue.id}`)).status).to.equal(200);
      let body: any;
      const sql = await queriesOf(async () => (body = (await client.get(`/api/issue/issue/${issue.id}`)).body));
      expect(body.title).to.equal('one query');
      expect(sql, sql.join('\n')).to.have.length(1);
    }
    // any change to a group drops every cached principal: the principal is read again, with the row
    await created(admin, '/api/customgroup', { name: unique('unrelated'), permissions: [], user_ids: [] });
    await created(admin, '/api/customgroup', { name: unique('member'), permissions: [], user_ids: [reader.id] });
    expect(await countQueries(() => reader.client.get(`/api/issue/issue/${issue.id}`))).to.equal(2);
    expect(await countQueries(() => reader.client.get(`/api/issue/issue/${issue.id}`))).to.equal(1);
  });

  it('reads no session when the request carries a token, even with a session cookie', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker', 'issues.add_tracker'] });
    const browser = new SessionClient(suite().service.url);
    expect((await browser.login(user.username, 'correct-horse-1')).status).to.equal(200);
    const readsSession = (sql: string[]) => sql.some((q) => /\bsessions\b/.test(q));
    // without a token the cookie's session is read, so the check below can fail
    expect(readsSession(await queriesOf(() => browser.request('GET', '/api/issue/tracker')))).to.equal(true);
    for (const method of ['GET', 'POST'] as const) {
      let status = 0;
      const sql = await queriesOf(async () => {
        const res = await browser.request(method, '/api/issue/tracker', { headers: { Authorization: `Token ${user.token}` }, body: method === 'POST' ? {} : undefined });
        status = res.status;
      });
      // the write is judged by its body (400), not refused for a missing CSRF token (403)
      expect(status, method).to.equal(method === 'GET' ? 200 : 400);
      expect(readsSession(sql), sql.join('\n')).to.equal(false);
    }
  });
});

describe('round trips of a write', () => {
  let tracker: any;
  let categories: any[];
  let member: TestUser;

  before(async () => {
    const { admin } = suite();
    // a member sees the tracker through its team: the visibility rules are part of the statement
    const team = await created(admin, '/api/customgroup', { name: unique('writers') });
    member = await makeUser({ permissions: ['issues.view_issue', 'issues.add_issue', 'issues.change_issue'], groupIds: [team.id] });
    tracker = await created(admin, '/api/issue/tracker', { title: unique('writes'), visibility: 'protected', team_ids: [team.id] });
    categories = [];
    for (const title of ['a', 'b']) categories.push(await created(admin, '/api/issue/category', { tracker_id: tracker.id, title }));
  });

  for (const who of ['a superuser', 'a team member'] as const) {
    describe(`as ${who}`, () => {
      const client = () => (who === 'a superuser' ? suite().admin : member.client);

      it('creates an issue with 2 categories in one statement, answering what a read answers', async () => {
        let res: any;
        const ids = [categories[1].id, categories[0].id, categories[1].id];
        const sql = await ownQueries(async () => (res = await client().post('/api/issue/issue', { tracker_id: tracker.id, title: 'one trip', category_ids: ids })));
        expect(res.status, res.text).to.equal(201);
        expect(sql, sql.join('\n')).to.have.length(1);
        expect(res.body.categories).to.deep.equal(categories.map((c) => c.id));
        expect(res.body.state).to.equal('new');
        expect(res.body.classification).to.equal('confidential');
        expect(res.text).to.equal((await client().get(`/api/issue/issue/${res.body.id}`)).text);
        const log = (await client().get(`/api/issue/issue/${res.body.id}/transitions`)).body;
        expect(log.map((l: any) => [l.from, l.to])).to.deep.equal([[null, 'new']]);
      });

      it('changes a title in one statement, and a state along an allowed move in one', async () => {
        const issue = await created(client(), '/api/issue/issue', { tracker_id: tracker.id, title: 'before', category_ids: [categories[0].id] });
        let res: any;
        const title = await ownQueries(async () => (res = await client().patch(`/api/issue/issue/${issue.id}`, { title: 'after' })));
        expect(res.status, res.text).to.equal(200);
        expect(title, title.join('\n')).to.have.length(1);
        expect(res.body.title).to.equal('after');
        expect(res.body.categories).to.deep.equal([categories[0].id]);
        const state = await ownQueries(async () => (res = await client().patch(`/api/issue/issue/${issue.id}`, { state: 'pending' })));
        expect(res.status, res.text).to.equal(200);
        expect(state, state.join('\n')).to.have.length(1);
        expect(res.text).to.equal((await client().get(`/api/issue/issue/${issue.id}`)).text);
        const log = (await client().get(`/api/issue/issue/${issue.id}/transitions`)).body;
        expect(log.map((l: any) => [l.from, l.to, l.changed_by])).to.deep.equal([
          [null, 'new', res.body.created_by],
          ['new', 'pending', who === 'a superuser' ? suite().adminId : member.id],
        ]);
      });

      it('changes a record under If-Match in one statement, comparing the tag under the row lock; a stale tag answers 412 and writes nothing', async () => {
        const issue = await created(client(), '/api/issue/issue', { tracker_id: tracker.id, title: 'tagged', category_ids: [categories[0].id] });
        const path = `/api/issue/issue/${issue.id}`;
        const tag = (await client().get(path)).headers.get('etag')!;
        let res: any;
        const sql = await ownQueries(async () => (res = await client().patch(path, { title: 'retagged' }, { headers: { 'If-Match': tag } })));
        expect(res.status, res.text).to.equal(200);
        expect(sql, sql.join('\n')).to.have.length(1);
        expect(res.headers.get('etag')).to.equal((await client().get(path)).headers.get('etag')).and.not.equal(tag);
        const stale = await client().patch(path, { title: 'lost' }, { headers: { 'If-Match': tag } });
        expect([stale.status, stale.body]).to.deep.equal([412, { detail: 'Precondition failed.' }]);
        expect((await client().get(path)).body.title).to.equal('retagged');
      });
    });
  }

  it('creates under an Idempotency-Key with one statement beside the key\'s row, in the key\'s transaction; a repeat replays it without writing', async () => {
    const { admin } = suite();
    const key = unique('key');
    const body = { tracker_id: tracker.id, title: 'keyed', category_ids: [categories[0].id] };
    let res: any;
    const sql = await ownQueries(async () => (res = await admin.post('/api/issue/issue', body, { headers: { 'Idempotency-Key': key } })));
    expect(res.status, res.text).to.equal(201);
    // (the purge of every user's expired keys runs at most once a minute)
    const keys = sql.filter((q) => /\bidempotency_keys\b/.test(q) && !/skip locked/.test(q));
    sql.splice(0, sql.length, ...sql.filter((q) => !/skip locked/.test(q)));
    const rest = sql.filter((q) => !keys.includes(q));
    expect(rest.map((q) => (/^(BEGIN|COMMIT)/i.test(q) ? q : /\binsert into "issue_issue"/.test(q) ? 'the statement' : q)), sql.join('\n')).to.deep.equal(['BEGIN;', 'the statement', 'COMMIT;']);
    // the expired key of this user removed, the key inserted, the answer stored
    expect(keys, keys.join('\n')).to.have.length(3);
    const again = await ownQueries(async () => (res = await admin.post('/api/issue/issue', body, { headers: { 'Idempotency-Key': key } })));
    expect(res.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.filter((q) => /issue_issue/.test(q))).to.deep.equal([]);
  });

  it("writes a non-superuser's change of a group in one transaction: the lock, the escalation check's reads, the statement", async () => {
    const { admin } = suite();
    const manager = await makeUser({ permissions: ['users.view_customgroup', 'users.change_customgroup'] });
    const group = await created(admin, '/api/customgroup', { name: unique('managed') });
    let res: any;
    const sql = await ownQueries(async () => (res = await manager.client.patch(`/api/customgroup/${group.id}`, { name: unique('renamed') })));
    expect(res.status, res.text).to.equal(200);
    expect(sql[0]).to.match(/^BEGIN/i);
    expect(sql.at(-1)).to.match(/^COMMIT/i);
    expect(sql.filter((q) => /^with /i.test(q) && /\bupdate "groups"/i.test(q)), sql.join('\n')).to.have.length(1);
    expect(res.text).to.equal((await admin.get(`/api/customgroup/${group.id}`)).text);
  });

  /** A statement of a write, by what it does. */
  const named = (sql: string): string =>
    /^with /i.test(sql) ? 'the statement' : /for update( of \S+)?$/i.test(sql) ? 'a lock' : /^select set_config/i.test(sql) ? 'the actor' : sql;

  describe('every resource (registry-driven, as a superuser)', () => {
    for (const resource of registry.resources) {
      // hooks read what they declare, around a dry run of the statement (resource-hooks.test.ts)
      if (resource.declaration.hooks) continue;
      // a noOverlap rule's scope record is locked first (an update's own record before it), in the statement's transaction
      const scoped = resource.rules.some((r) => r.kind === 'noOverlap');
      const locks = (n: number) => (scoped ? ['BEGIN;', 'the actor', ...Array<string>(n).fill('a lock')] : []);
      // order rules compare the stored values in the process, before the update commits
      const ordered = resource.rules.some((r) => r.kind === 'order');
      const update = scoped || ordered ? [...(scoped ? locks(2) : ['BEGIN;']), 'the statement', 'COMMIT;'] : ['the statement'];
      const creating = scoped ? [...locks(1), 'the statement', 'COMMIT;'] : ['the statement'];
      it(`${resource.path}: a create with every field, key and link in ${creating.length === 1 ? 'one statement' : `a transaction of ${creating.length}`}, a PUT of it and a PATCH of its links in ${update.length}`, async () => {
        const { admin } = suite();
        const live = suite().service.app.services.get(resource.key)!.resource;
        // every optional key, a link of each kind (sharing the declared parent), remote_key
        const body = await new Samples(admin).body(live, { complete: true });
        let res: any;
        const create = await ownQueries(async () => (res = await admin.post(resource.path, body)));
        expect(res.status, res.text).to.equal(201);
        expect(create.map(named), create.join('\n')).to.deep.equal(creating);
        const path = `${resource.path}/${res.body.id}`;
        expect(res.text).to.equal((await admin.get(path)).text);
        const put = await ownQueries(async () => (res = await admin.put(path, res.body)));
        expect(res.status, res.text).to.equal(200);
        expect(put.map(named), put.join('\n')).to.deep.equal(update);
        const unlinked = Object.fromEntries(live.manyToMany.filter((m) => !m.spec.readOnly).map((m) => [m.writeName, []]));
        const patch = await ownQueries(async () => (res = await admin.patch(path, unlinked)));
        expect(res.status, res.text).to.equal(200);
        expect(patch.map(named), patch.join('\n')).to.deep.equal(update);
        expect(res.text).to.equal((await admin.get(path)).text);
        for (const m of live.manyToMany) if (!m.spec.readOnly) expect(res.body[m.name], m.name).to.deep.equal([]);
      });
    }
  });

  it('answers an update its order rule refuses by rolling the statement back, nothing queried beside it', async () => {
    const { admin } = suite();
    const project = await new Samples(admin).create(registry.get('projects/project'));
    const path = `/api/projects/project/${project.id}`;
    let res: any;
    const sql = await ownQueries(async () => (res = await admin.patch(path, { end: '1999-01-01', title: 'not kept' })));
    expect(sql.map((q) => (/^with /i.test(q) ? 'the statement' : q)), sql.join('\n')).to.deep.equal(['BEGIN;', 'the statement', 'ROLLBACK']);
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.deep.equal({ end: ['Must not be before start.'] });
    expect((await admin.get(path)).body).to.deep.equal(project);
  });

  it('answers a create it cannot make with every error at once, in its one statement, and writes nothing', async () => {
    const { admin, service } = suite();
    const hidden = await created(admin, '/api/issue/tracker', { title: unique('hidden'), visibility: 'confidential' });
    const before = await service.db('issue_issue').count({ n: '*' }).first();
    let res: any;
    const body = { tracker_id: hidden.id, title: 'refused', category_ids: [categories[0].id, 2147483647] };
    const sql = await ownQueries(async () => (res = await member.client.post('/api/issue/issue', body)));
    expect(res.status, res.text).to.equal(400);
    expect(sql, sql.join('\n')).to.have.length(1);
    expect(res.body).to.deep.equal({ tracker_id: invalidPk(hidden.id), category_ids: invalidPk(2147483647) });
    // linked ids named in the order sent; a category of another tracker does not belong
    const other = await created(admin, '/api/issue/tracker', { title: unique('other') });
    const stray = await created(admin, '/api/issue/category', { tracker_id: other.id, title: 'elsewhere' });
    const mixed = await admin.post('/api/issue/issue', { tracker_id: tracker.id, title: 'refused', category_ids: [2147483647, stray.id, categories[0].id, 2147483646, stray.id] });
    expect(mixed.body).to.deep.equal({
      category_ids: [...invalidPk(2147483647), `Category ${stray.id} does not belong to tracker ${tracker.id}.`, ...invalidPk(2147483646)],
    });
    // refused by its shape and its state as well: still one statement, every field's errors in the checks' order
    const shape = { tracker_id: hidden.id, title: '', state: 'resolved', deadline: 'soon', category_ids: [2147483647] };
    const refused = await ownQueries(async () => (res = await member.client.post('/api/issue/issue', shape)));
    expect(refused, refused.join('\n')).to.have.length(1);
    expect(res.body).to.deep.equal({
      title: ['This field may not be blank.'],
      deadline: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      tracker_id: invalidPk(hidden.id),
      category_ids: invalidPk(2147483647),
      state: ['"resolved" is not a valid initial state; use one of: new.'],
    });
    expect(await service.db('issue_issue').count({ n: '*' }).first()).to.deep.equal(before);
    expect(await service.db('issue_issue').where({ title: 'refused' }).first()).to.equal(undefined);
  });

  it('deletes in one statement, and answers a delete it cannot make in it: 409 naming what holds the record, 404, 403, 412', async () => {
    const { admin } = suite();
    const one = async (client: Client, path: string, headers: Record<string, string> = {}) => {
      let res: any;
      const sql = await ownQueries(async () => (res = await client.delete(path, { headers })));
      expect(sql, sql.join('\n')).to.have.length(1);
      return res;
    };
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'gone', category_ids: [categories[0].id] });
    expect((await one(admin, `/api/issue/issue/${issue.id}`, { 'If-Match': '"stale"' })).status).to.equal(412);
    expect((await one(admin, `/api/issue/issue/${issue.id}`)).status).to.equal(204);
    expect((await admin.get(`/api/issue/issue/${issue.id}`)).status).to.equal(404);
    expect((await one(admin, `/api/issue/issue/${issue.id}`)).status).to.equal(404);
    const held = await created(admin, '/api/issue/tracker', { title: unique('held') });
    await created(admin, '/api/issue/issue', { tracker_id: held.id, title: 'holds' });
    const refused = await one(admin, `/api/issue/tracker/${held.id}`);
    expect([refused.status, refused.body]).to.deep.equal([409, { detail: `Cannot delete tracker ${held.id}: referenced by 1 issue records.` }]);
    const editor = await makeUser({ permissions: ['issues.view_tracker', 'issues.delete_tracker'] });
    expect((await one(editor.client, `/api/issue/tracker/${held.id}`)).status).to.equal(403);
  });

  it('answers a change it cannot make in its one statement: 404, 403, 412 and a refused move as before, nothing written', async () => {
    const { admin } = suite();
    const issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'fixed', category_ids: [categories[0].id] });
    const stranger = await makeUser({ permissions: ['issues.change_issue'] });
    /** The answer to a PATCH, which must take one statement. */
    const refused = async (client: Client, path: string, body: object, headers: Record<string, string> = {}) => {
      let res: any;
      const sql = await ownQueries(async () => (res = await client.patch(path, body, { headers })));
      expect(sql, sql.join('\n')).to.have.length(1);
      return res;
    };
    expect((await refused(stranger.client, `/api/issue/issue/${issue.id}`, { title: 'x' })).status).to.equal(404);
    // a tracker's change rule: its admins only
    const editor = await makeUser({ permissions: ['issues.view_tracker', 'issues.change_tracker'] });
    const open = await created(admin, '/api/issue/tracker', { title: unique('open') });
    expect((await refused(editor.client, `/api/issue/tracker/${open.id}`, { title: 'x' })).status).to.equal(403);
    expect((await refused(member.client, `/api/issue/issue/${issue.id}`, { title: 'x' }, { 'If-Match': '"stale"' })).status).to.equal(412);
    const move = await refused(member.client, `/api/issue/issue/${issue.id}`, { state: 'resolved', category_ids: [2147483647] });
    expect(move.status).to.equal(400);
    expect(move.body).to.deep.equal({ category_ids: invalidPk(2147483647), state: ['Transition from "new" to "resolved" is not allowed.'] });
    const shape = await refused(member.client, `/api/issue/issue/${issue.id}`, { title: '', state: 'resolved', tracker_id: 2147483647 });
    expect(shape.body).to.deep.equal({ title: ['This field may not be blank.'], tracker_id: invalidPk(2147483647), state: ['Transition from "new" to "resolved" is not allowed.'] });
    const after = (await admin.get(`/api/issue/issue/${issue.id}`)).body;
    expect([after.title, after.state, after.categories]).to.deep.equal(['fixed', 'new', [categories[0].id]]);
  });
});

describe('statements of a batch action', () => {
  /** The statements of one batch request beside authenticating its token, BEGIN and COMMIT counted. */
  const batchStatements = async (client: Client, path: string, body: object): Promise<string[]> => {
    let res: any;
    const sql = await ownQueries(async () => (res = await client.post(path, body)));
    expect(res.status, res.text).to.equal(200);
    return sql;
  };
  /** `n` documents in a new folder, written directly: the API would take minutes for a thousand. */
  const documents = async (n: number): Promise<number[]> => {
    const { admin, service, adminId } = suite();
    const folder = await created(admin, '/api/dms/folder', { title: unique('batch') });
    const rows = Array.from({ length: n }, (_, i) => ({ title: `doc ${i}`, folder_id: folder.id, created_by: adminId }));
    return ((await service.db('dms_document').insert(rows).returning('id')) as { id: number }[]).map((r) => r.id);
  };

  for (const who of ['a superuser', 'a user with the model permissions'] as const) {
    it(`is one statement for 1 and for 1,000 ids: move, archive and delete, as ${who}`, async function () {
      this.timeout(120_000);
      const client =
        who === 'a superuser'
          ? suite().admin
          : (await makeUser({ permissions: ['dms.view_document', 'dms.view_folder', 'dms.change_document', 'dms.delete_document'] })).client;
      const target = await created(suite().admin, '/api/dms/folder', { title: unique('target') });
      const [one, many] = [await documents(1), await documents(1000)];
      for (const [path, extra, answer] of [
        ['/api/dms/batch_move', { folder_id: target.id }, 'moved'],
        ['/api/dms/batch_archive', {}, 'archived'],
        ['/api/dms/batch_delete', {}, 'deleted'],
      ] as const) {
        const small = await batchStatements(client, path, { document_ids: one, ...extra });
        const large = await batchStatements(client, path, { document_ids: many, ...extra });
        // the locks, every record's checks (the documents' order rule too, whose dates these batches keep) and the write in one statement
        for (const sql of [small, large]) expect(sql.map((q) => (/^with /i.test(q) ? 'the statement' : q)), `${path}\n${sql.join('\n')}`).to.deep.equal(['the statement']);
        if (answer !== 'deleted') {
          const rows = await suite().service.db('dms_document').whereIn('id', many).select('folder_id', 'archived');
          expect(rows.every((r) => r.folder_id === target.id && r.archived === (answer === 'archived'))).to.equal(true);
        }
      }
      expect(Number(((await suite().service.db('dms_document').whereIn('id', [...one, ...many]).count({ n: '*' }).first()) as { n: number | string }).n)).to.equal(0);
    });
  }
});

describe('statements of an import', () => {
  it('creates a chunk of 500 rows with one statement per shape of row, ids in the sheet\'s order, links and state logs written', async function () {
    this.timeout(120_000);
    const { admin, service } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('import') });
    const categories = [await created(admin, '/api/issue/category', { title: unique('a'), tracker_id: tracker.id }), await created(admin, '/api/issue/category', { title: unique('b'), tracker_id: tracker.id })];
    const both = categories.map((c) => c.id).join(';');
    // two shapes: every third row without categories (a blank cell sets nothing)
    const rows = Array.from({ length: 1000 }, (_, i) => [`row ${i}`, tracker.id, i % 3 === 0 ? '' : both].join(','));
    let res: any;
    const sql = await ownQueries(async () => (res = await admin.post('/api/issue/issue/import', undefined, { raw: ['title,tracker_id,category_ids', ...rows].join('\r\n'), headers: { 'Content-Type': 'text/csv' } })));
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ rows: 1000, created: 1000, updated: 0, dry_run: false });
    // 2 chunks of 500, each: a savepoint, the ids drawn, a statement per shape, the savepoint released
    expect(sql.filter((q) => /^with /i.test(q)), sql.join('\n')).to.have.length(4);
    expect(sql.length, sql.join('\n')).to.be.at.most(16);
    const stored = (await service.db('issue_issue').where({ tracker_id: tracker.id }).orderBy('id').select('id', 'title', 'state')) as { id: number; title: string; state: string }[];
    expect(stored.map((r) => r.title)).to.deep.equal(rows.map((_, i) => `row ${i}`));
    expect(new Set(stored.map((r) => r.state))).to.deep.equal(new Set(['new']));
    const links = (await service.db('issue_issue_categories').whereIn('issue_id', stored.map((r) => r.id)).count({ n: '*' }).first()) as { n: number | string };
    expect(Number(links.n)).to.equal(666 * 2);
    const logged = (await service.db('state_changes').where({ resource: 'issue/issue' }).whereIn('record_id', stored.map((r) => r.id)).count({ n: '*' }).first()) as { n: number | string };
    expect(Number(logged.n)).to.equal(1000);
    // served as the API serves a created issue
    const detail = (await admin.get(`/api/issue/issue/${stored[1]!.id}`)).body;
    expect(detail).to.include({ title: 'row 1', tracker: tracker.id, state: 'new' });
    expect(detail.categories).to.deep.equal(categories.map((c) => c.id).sort((a, b) => a - b));
  });
});
