/**
 * A list costs a constant number of SQL queries, whatever its length (no N+1); a detail with a
 * cached principal costs one; a request with a token never reads the session store.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { SessionClient } from './support/browser-session.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { countQueries, queriesOf } from './support/queries.js';

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

    let smallList: any[] = [];
    let bigList: any[] = [];
    const one = await countQueries(async () => (smallList = (await admin.get(`/api/issue/issue?tracker=${small.id}`)).body));
    const many = await countQueries(async () => (bigList = (await admin.get(`/api/issue/issue?tracker=${big.id}`)).body));
    expect(smallList).to.have.length(1);
    expect(bigList).to.have.length(500);
    expect(bigList[0].categories).to.deep.equal(categories.map((c) => c.id));
    expect(bigList[499].contributors).to.deep.equal([adminId]);
    expect(many).to.equal(one);
    // authentication and the list itself; nothing per row
    expect(one).to.be.at.most(2);
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
