/** List filters, search, ordering and paging (spec 4.3, CONTRACT 9), alone and combined. */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, unique } from './support/fixtures.js';

describe('list filters', () => {
  const tag = unique('flt');
  let t1: any, t2: any, t3: any;
  let cat1: any;
  const ids = async (path: string) => {
    const res = await suite().admin.get(path);
    expect(res.status, res.text).to.equal(200);
    return res.body.map((r: any) => r.id) as number[];
  };

  before(async () => {
    const { admin } = suite();
    t1 = await created(admin, '/api/issue/tracker', { title: `${tag} Alpha`, state: 'approved', visibility: 'normal', public_form: true });
    t2 = await created(admin, '/api/issue/tracker', { title: `${tag} Beta`, state: 'draft', visibility: 'protected', public_form: false, admin_ids: [suite().adminId] });
    t3 = await created(admin, '/api/issue/tracker', { title: `${tag} Gamma`, state: 'approved', visibility: 'confidential', public_form: true, admin_ids: [suite().adminId] });
    cat1 = await created(admin, '/api/issue/category', { tracker_id: t1.id, title: `${tag} Area:UI` });
    await created(admin, '/api/issue/category', { tracker_id: t2.id, title: `${tag} Area:API` });
  });

  describe('tracker (spec 4.3)', () => {
    it('state', async () => {
      const found = await ids(`/api/issue/tracker?title=${tag}&state=approved`);
      expect(found).to.deep.equal([t1.id, t3.id]);
    });
    it('visibility', async () => expect(await ids(`/api/issue/tracker?title=${tag}&visibility=protected`)).to.deep.equal([t2.id]));
    it('public_form', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag}&public_form=true`)).to.deep.equal([t1.id, t3.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&public_form=false`)).to.deep.equal([t2.id]);
    });
    it('title, case-insensitive substring', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag.toUpperCase()}%20al`)).to.deep.equal([t1.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}%20gAmM`)).to.deep.equal([t3.id]);
    });
    it('combined with AND', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag}&state=approved&visibility=confidential&public_form=true`)).to.deep.equal([t3.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&state=draft&visibility=normal`)).to.deep.equal([]);
    });
    it('refuses invalid values under the parameter name, all at once', async () => {
      const res = await suite().admin.get('/api/issue/tracker?state=foo&visibility=bar&public_form=maybe');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        state: ['Select a valid choice. foo is not one of the available choices.'],
        visibility: ['Select a valid choice. bar is not one of the available choices.'],
        public_form: ['Select a valid choice. maybe is not one of the available choices.'],
      });
    });
    it('lookups a declaration chose: the title exactly, or one of several', async () => {
      expect(await ids(`/api/issue/tracker?title__exact=${encodeURIComponent(`${tag} Beta`)}`)).to.deep.equal([t2.id]);
      expect(await ids(`/api/issue/tracker?title__exact=${encodeURIComponent(`${tag} beta`)}`)).to.deep.equal([]);
      expect(await ids(`/api/issue/tracker?title__in=${encodeURIComponent(`${tag} Alpha,${tag} Gamma`)}`)).to.deep.equal([t1.id, t3.id]);
      const doc = (await suite().admin.get('/api/schema/?format=json', { token: null })).body;
      const names = doc.paths['/api/issue/tracker'].get.parameters.map((p: any) => p.name);
      expect(names).to.include.members(['title', 'title__exact', 'title__in']);
    });
    it('ignores unknown parameters', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag}&colour=red`)).to.have.length(3);
    });
    it('title and search take %, _ and \\ literally, not as wildcards or an escape', async () => {
      const lit = unique('lit');
      const titles = ['100% done', '100x done', 'a_b', 'axb', 'back\\slash', 'backslash'];
      const made: Record<string, number> = {};
      for (const t of titles) made[t] = (await created(suite().admin, '/api/issue/tracker', { title: `${lit} ${t}`, description: `About ${t}.` })).id;
      // the title filter within this test's trackers; search with this test's tag as one of its words
      const titled = (text: string) => ids(`/api/issue/tracker?search=${lit}&title=${encodeURIComponent(text)}&ordering=id`);
      const searched = (text: string) => ids(`/api/issue/tracker?search=${encodeURIComponent(`${lit} ${text}`)}&ordering=id`);
      for (const [name, matching] of [['title', titled], ['search', searched]] as const) {
        expect(await matching('100%'), `${name} %`).to.deep.equal([made['100% done']]);
        expect(await matching('A_B'), `${name} _`).to.deep.equal([made.a_b]);
        expect(await matching('back\\s'), `${name} \\`).to.deep.equal([made['back\\slash']]);
        expect(await matching('%'), `${name} % alone`).to.deep.equal([made['100% done']]);
        expect(await matching('_'), `${name} _ alone`).to.deep.equal([made.a_b]);
      }
      // each word of a search matches the title or the description
      expect(await searched('ABOUT 100%')).to.deep.equal([made['100% done']]);
    });
  });

  describe('category', () => {
    it('tracker and title', async () => {
      expect(await ids(`/api/issue/category?tracker=${t1.id}`)).to.deep.equal([cat1.id]);
      expect(await ids(`/api/issue/category?title=${tag}%20area:ui`)).to.deep.equal([cat1.id]);
      expect(await ids(`/api/issue/category?tracker=${t2.id}&title=area:ui`)).to.deep.equal([]);
    });
    it('refuses a non-numeric tracker', async () => {
      const res = await suite().admin.get('/api/issue/category?tracker=abc');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ tracker: ['Enter a number.'] });
    });
  });

  describe('issue', () => {
    let i1: any, i2: any, i3: any;
    before(async () => {
      const { admin } = suite();
      i1 = await created(admin, '/api/issue/issue', { tracker_id: t1.id, title: `${tag} one`, assigned_user_id: suite().adminId, category_ids: [cat1.id] });
      i2 = await created(admin, '/api/issue/issue', { tracker_id: t2.id, title: `${tag} two`, archived: true, deadline: '2026-05-01' });
      i3 = await created(admin, '/api/issue/issue', { tracker_id: t3.id, title: `${tag} three`, deadline: '2026-06-01' });
      await admin.patch(`/api/issue/issue/${i3.id}`, { state: 'pending' });
    });
    const within = (q: string) => ids(`/api/issue/issue?search=${tag}&${q}`);
    it('tracker', async () => expect(await within(`tracker=${t2.id}`)).to.deep.equal([i2.id]));
    it('state', async () => expect(await within('state=pending')).to.deep.equal([i3.id]));
    it('archived', async () => {
      expect(await within('archived=true')).to.deep.equal([i2.id]);
      expect(await within('archived=false')).to.deep.equal([i1.id, i3.id]);
    });
    it('assigned_user', async () => expect(await within(`assigned_user=${suite().adminId}`)).to.deep.equal([i1.id]));
    it('classification', async () => {
      expect(await within('classification=official')).to.deep.equal([i1.id]);
      expect(await within('classification=confidential')).to.deep.equal([i2.id]);
      expect(await within('classification=secret')).to.deep.equal([i3.id]);
    });
    it('categories (many-to-many membership)', async () => expect(await within(`categories=${cat1.id}`)).to.deep.equal([i1.id]));
    it('date range, inclusive', async () => {
      expect(await within('deadline_from=2026-05-01&deadline_to=2026-05-31')).to.deep.equal([i2.id]);
      expect(await within('deadline_from=2026-05-02')).to.deep.equal([i3.id]);
      expect(await within('deadline_to=2026-06-01')).to.deep.equal([i2.id, i3.id]);
    });
    it('combined', async () => expect(await within(`classification=secret&state=pending&tracker=${t3.id}`)).to.deep.equal([i3.id]));
    it('lookups a declaration chose: range and isnull on the deadline', async () => {
      expect(await within('deadline__range=2026-05-01,2026-05-31')).to.deep.equal([i2.id]);
      expect(await within('deadline__range=2026-05-01,2026-06-01')).to.deep.equal([i2.id, i3.id]);
      expect(await within('deadline__isnull=true')).to.deep.equal([i1.id]);
      expect(await within('deadline__isnull=false')).to.deep.equal([i2.id, i3.id]);
      const bad = await suite().admin.get('/api/issue/issue?deadline__range=2026-05-01&deadline__isnull=maybe');
      expect(bad.body).to.deep.equal({
        deadline__range: ['Enter 2 values separated by a comma.'],
        deadline__isnull: ['Select a valid choice. maybe is not one of the available choices.'],
      });
    });
    it('refuses bad values', async () => {
      const res = await suite().admin.get('/api/issue/issue?state=done&classification=public&assigned_user=me&deadline_from=soon');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        state: ['Select a valid choice. done is not one of the available choices.'],
        classification: ['Select a valid choice. public is not one of the available choices.'],
        assigned_user: ['Enter a number.'],
        deadline_from: ['Enter a valid date/time.'],
      });
    });
  });

  describe('on every resource', () => {
    it('search: several words must each match some search field', async () => {
      const { admin } = suite();
      const a = await created(admin, '/api/organisation/mitarbeitende', { vorname: `${tag}Anna`, nachname: 'Keller', email: 'anna@example.com' });
      await created(admin, '/api/organisation/mitarbeitende', { vorname: `${tag}Bruno`, nachname: 'Keller' });
      expect(await ids(`/api/organisation/mitarbeitende?search=${tag.toUpperCase()}ANNA%20keller`)).to.deep.equal([a.id]);
      expect(await ids(`/api/organisation/mitarbeitende?search=${tag}%20example.com`)).to.deep.equal([a.id]);
      expect(await ids(`/api/organisation/mitarbeitende?search=${tag}%20nobody`)).to.deep.equal([]);
    });
    it('ordering by fields, descending, with id breaking ties', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag}&ordering=-title`)).to.deep.equal([t3.id, t2.id, t1.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&ordering=state,-id`)).to.deep.equal([t3.id, t1.id, t2.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}`)).to.deep.equal([t1.id, t2.id, t3.id]);
      const res = await suite().admin.get('/api/issue/tracker?ordering=title,foo');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ ordering: ['Cannot order by "foo".'] });
    });
    it('uuid, with 400 for a malformed one', async () => {
      expect(await ids(`/api/issue/tracker?uuid=${t2.uuid}`)).to.deep.equal([t2.id]);
      const res = await suite().admin.get('/api/issue/tracker?uuid=nope');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ uuid: ['Enter a valid UUID.'] });
    });
    it('created_after / created_before / modified_after / modified_before, dates and date-times inclusive', async () => {
      const today = t1.created.slice(0, 10);
      expect(await ids(`/api/issue/tracker?title=${tag}&created_after=${today}&created_before=${today}`)).to.have.length(3);
      expect(await ids(`/api/issue/tracker?title=${tag}&created_after=${encodeURIComponent(t2.created)}`)).to.deep.equal([t2.id, t3.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&created_before=${encodeURIComponent(t2.created)}`)).to.deep.equal([t1.id, t2.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&modified_after=2999-01-01`)).to.deep.equal([]);
      expect(await ids(`/api/issue/tracker?title=${tag}&modified_before=2000-01-01`)).to.deep.equal([]);
    });
    it('limit and offset page through a list', async () => {
      expect(await ids(`/api/issue/tracker?title=${tag}&limit=2`)).to.deep.equal([t1.id, t2.id]);
      expect(await ids(`/api/issue/tracker?title=${tag}&limit=2&offset=2`)).to.deep.equal([t3.id]);
      expect((await suite().admin.get('/api/issue/tracker?limit=-1')).body).to.deep.equal({ limit: ['Enter a number.'] });
    });
    it('employees: archived (spec 2.1)', async () => {
      const { admin } = suite();
      const gone = await created(admin, '/api/organisation/mitarbeitende', { vorname: tag, nachname: 'Former', archived: true });
      const here = await created(admin, '/api/organisation/mitarbeitende', { vorname: tag, nachname: 'Current' });
      expect(await ids(`/api/organisation/mitarbeitende?search=${tag}&archived=true`)).to.deep.equal([gone.id]);
      const current = await ids(`/api/organisation/mitarbeitende?search=${tag}&archived=false`);
      expect(current).to.include(here.id).and.not.include(gone.id);
      expect(await ids(`/api/organisation/mitarbeitende?search=${tag}%20current&archived=false`)).to.deep.equal([here.id]);
    });
  });
});
