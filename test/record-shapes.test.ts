/**
 * `?fields=` and `?expand=` on lists and details: only the keys named, relations replaced by the
 * related records as their own detail serves them, an invisible one left a bare id, unknown names
 * refused under the parameter; every resource's every relation expands (registry-driven).
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

describe('fields= and expand=', () => {
  let tracker: any;
  let hidden: any;
  let categories: any[];
  let issue: any;
  let secret: any;
  let member: TestUser;

  before(async () => {
    const { admin, adminId } = suite();
    member = await makeUser({ permissions: ['issues.view_issue', 'issues.view_tracker', 'issues.view_issuecategory', 'users.view_user'] });
    tracker = await created(admin, '/api/issue/tracker', { title: unique('shapes') });
    hidden = await created(admin, '/api/issue/tracker', { title: unique('hidden'), visibility: 'confidential' });
    categories = [await created(admin, '/api/issue/category', { tracker_id: tracker.id, title: 'b' }), await created(admin, '/api/issue/category', { tracker_id: tracker.id, title: 'a' })];
    issue = await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'shaped', category_ids: categories.map((c) => c.id), contributor_ids: [adminId] });
    // the member sees this issue (assigned to them), not its confidential tracker nor that tracker's category
    const hiddenCategory = await created(admin, '/api/issue/category', { tracker_id: hidden.id, title: 'c' });
    secret = await created(admin, '/api/issue/issue', { tracker_id: hidden.id, title: 'secret', assigned_user_id: member.id, category_ids: [hiddenCategory.id] });
  });

  it('keeps only the fields named, in the order a record serves them, in details and lists', async () => {
    const { admin } = suite();
    const detail = await admin.get(`/api/issue/issue/${issue.id}?fields=title,id,state`);
    expect(detail.status, detail.text).to.equal(200);
    expect(Object.keys(detail.body)).to.deep.equal(['id', 'title', 'state']);
    expect(detail.body).to.deep.equal({ id: issue.id, title: 'shaped', state: 'new' });
    const list = await admin.get(`/api/issue/issue?tracker=${tracker.id}&fields=id,categories`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body).to.deep.equal([{ id: issue.id, categories: issue.categories }]);
  });

  it('replaces expanded relations by the related records as their details serve them, one level deep', async () => {
    const { admin } = suite();
    const res = await admin.get(`/api/issue/issue/${issue.id}?expand=tracker,categories,contributors`);
    expect(res.status, res.text).to.equal(200);
    const detailOf = async (path: string) => (await admin.get(path)).body;
    expect(res.body.tracker).to.deep.equal(await detailOf(`/api/issue/tracker/${tracker.id}`));
    const sorted = [...categories].sort((a, b) => a.id - b.id);
    expect(res.body.categories).to.deep.equal(await Promise.all(sorted.map((c) => detailOf(`/api/issue/category/${c.id}`))));
    expect(res.body.contributors).to.deep.equal([await detailOf(`/api/user/${suite().adminId}`)]);
    // one level: the expanded category's tracker stays an id
    expect(res.body.categories[0].tracker).to.equal(tracker.id);
    expect(res.body.assigned_user).to.equal(null);
    const expanded = new Set(['tracker', 'categories', 'contributors']);
    const others = (record: Record<string, unknown>) => Object.entries(record).filter(([k]) => !expanded.has(k));
    expect(others(res.body)).to.deep.equal(others(issue));
  });

  it('applies expand to the fields kept, and leaves a related record the caller cannot see a bare id', async () => {
    const res = await member.client.get(`/api/issue/issue/${secret.id}?fields=id,tracker,categories,assigned_user&expand=tracker,categories,assigned_user,contributors`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.tracker).to.equal(hidden.id);
    expect(res.body.categories).to.deep.equal(secret.categories);
    expect(res.body.assigned_user.id).to.equal(member.id);
    expect(Object.keys(res.body)).to.deep.equal(['id', 'tracker', 'assigned_user', 'categories']);
    // without the view permission of users, users stay ids
    const reader = await makeUser({ permissions: ['issues.view_issue', 'issues.view_tracker'] });
    const ids = await reader.client.get(`/api/issue/issue/${issue.id}?expand=tracker,contributors`);
    expect([ids.body.tracker.id, ids.body.contributors]).to.deep.equal([tracker.id, [suite().adminId]]);
    const list = await member.client.get(`/api/issue/issue?expand=tracker&fields=id,tracker&ordering=id`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.find((r: any) => r.id === secret.id).tracker).to.equal(hidden.id);
    expect(list.body.find((r: any) => r.id === issue.id).tracker.title).to.equal(tracker.title);
  });

  it('refuses unknown names with 400 under the parameter, every one at once', async () => {
    const { admin } = suite();
    for (const path of [`/api/issue/issue/${issue.id}`, '/api/issue/issue']) {
      const res = await admin.get(`${path}?fields=id,foo,bar&expand=title,nope`);
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.deep.equal({ fields: ['Unknown field "foo".', 'Unknown field "bar".'], expand: ['Cannot expand "title".', 'Cannot expand "nope".'] });
    }
    // in a list, together with every other bad parameter
    const list = await admin.get('/api/issue/issue?fields=foo&ordering=nope');
    expect(list.body).to.deep.equal({ ordering: ['Cannot order by "nope".'], fields: ['Unknown field "foo".'] });
    // an empty value asks for nothing in particular
    expect((await admin.get(`/api/issue/issue/${issue.id}?fields=&expand=`)).text).to.equal((await admin.get(`/api/issue/issue/${issue.id}`)).text);
  });

  describe('every relation of every resource expands to its record (registry-driven)', () => {
    for (const resource of registry.resources) {
      const relations = [...resource.foreignKeys, ...resource.manyToMany];
      if (!relations.length) continue;
      it(`${resource.path}: ${relations.map((r) => r.name).join(', ')}`, async () => {
        const { admin } = suite();
        const live = suite().service.app.services.get(resource.key)!.resource;
        const record = await new Samples(admin).create(live, { complete: true });
        const names = relations.map((r) => r.name);
        const res = await admin.get(`${resource.path}/${record.id}?expand=${names.join(',')}&fields=id,${names.join(',')}`);
        expect(res.status, res.text).to.equal(200);
        expect(Object.keys(res.body).sort()).to.deep.equal(['id', ...names].sort());
        for (const r of relations) {
          const ids: (number | null)[] = r.kind === 'fk' ? [record[r.name]] : record[r.name];
          const expanded = r.kind === 'fk' ? [res.body[r.name]] : res.body[r.name];
          expect(expanded.length, r.name).to.equal(ids.length);
          for (const [i, id] of ids.entries()) {
            if (id === null) expect(expanded[i], r.name).to.equal(null);
            else expect(expanded[i], r.name).to.deep.equal((await admin.get(`${r.target.path}/${id}`)).body);
          }
        }
        const list = await admin.get(`${resource.path}?expand=${names.join(',')}&fields=id,${names.join(',')}&limit=1000&ordering=-id`);
        expect(list.status, list.text).to.equal(200);
        expect(list.body.find((r: any) => r.id === record.id)).to.deep.equal(res.body);
      });
    }
  });
});
