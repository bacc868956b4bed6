/** Every validation message of CONTRACT 3, reported for all offending fields at once. */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, unique } from './support/fixtures.js';

describe('validation', () => {
  let tracker: any;
  before(async () => {
    tracker = await created(suite().admin, '/api/issue/tracker', { title: 'Validation' });
  });
  const post = (path: string, body: unknown) => suite().admin.post(path, body);

  const cases: [string, string, Record<string, unknown>, string, string][] = [
    ['required field missing', '/api/issue/tracker', {}, 'title', 'This field is required.'],
    ['null where not allowed', '/api/issue/tracker', { title: null }, 'title', 'This field may not be null.'],
    ['empty string', '/api/issue/tracker', { title: '' }, 'title', 'This field may not be blank.'],
    ['not an integer', '/api/issue/issue', { title: 't', tracker_id: 'abc' }, 'tracker_id', 'A valid integer is required.'],
    ['not a boolean', '/api/issue/tracker', { title: 't', public_form: 'yes' }, 'public_form', 'Must be a valid boolean.'],
    ['not a string', '/api/issue/tracker', { title: 42 }, 'title', 'Not a valid string.'],
    ['unknown enum value', '/api/issue/tracker', { title: 't', visibility: 'foo' }, 'visibility', '"foo" is not a valid choice.'],
    ['missing foreign key', '/api/issue/issue', { title: 't', tracker_id: 999999 }, 'tracker_id', 'Invalid pk "999999" - object does not exist.'],
    ['many-to-many not a list', '/api/issue/tracker', { title: 't', admin_ids: 'x' }, 'admin_ids', 'Expected a list of items but got type "str".'],
    ['too long', '/api/issue/tracker', { title: 'x'.repeat(256) }, 'title', 'Ensure this field has no more than 255 characters.'],
    ['bad e-mail', '/api/organisation/mitarbeitende', { vorname: 'a', nachname: 'b', email: 'nope' }, 'email', 'Enter a valid email address.'],
    ['bad date', '/api/organisation/mitarbeitende', { vorname: 'a', nachname: 'b', entry_date: '2026-02-30' }, 'entry_date', 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
    ['date in another format', '/api/organisation/mitarbeitende', { vorname: 'a', nachname: 'b', entry_date: '01.02.2026' }, 'entry_date', 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
    ['integer out of range', '/api/issue/issue', { title: 't', tracker_id: 2147483648 }, 'tracker_id', 'Ensure this value is less than or equal to 2147483647.'],
    ['unknown field', '/api/issue/tracker', { title: 't', colour: 'x' }, 'colour', 'Unknown field.'],
    ['many-to-many item not an integer', '/api/issue/tracker', { title: 't', admin_ids: ['a'] }, 'admin_ids', 'A valid integer is required.'],
    ['missing many-to-many target', '/api/issue/tracker', { title: 't', admin_ids: [999999] }, 'admin_ids', 'Invalid pk "999999" - object does not exist.'],
  ];
  for (const [name, path, body, field, message] of cases) {
    it(`${name}: ${message}`, async () => {
      const res = await post(path, body);
      expect(res.status, res.text).to.equal(400);
      expect(res.body[field]).to.deep.equal([message]);
    });
  }

  it('a forbidden state move', async () => {
    const issue = await created(suite().admin, '/api/issue/issue', { tracker_id: tracker.id, title: 'Move' });
    const res = await suite().admin.patch(`/api/issue/issue/${issue.id}`, { state: 'resolved' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ state: ['Transition from "new" to "resolved" is not allowed.'] });
  });

  it('reports every offending field at once, shape and database errors together', async () => {
    const res = await post('/api/issue/issue', { tracker_id: 999999, title: '', deadline: 'soon', state: 'foo', category_ids: [888888], oops: 1 });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      tracker_id: ['Invalid pk "999999" - object does not exist.'],
      title: ['This field may not be blank.'],
      deadline: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      state: ['"foo" is not a valid choice.'],
      category_ids: ['Invalid pk "888888" - object does not exist.'],
      oops: ['Unknown field.'],
    });
  });

  it('writes nothing when a body is refused', async () => {
    const before = (await suite().admin.get('/api/issue/tracker')).body.length;
    await post('/api/issue/tracker', { title: 'Refused', admin_ids: [999999] });
    expect((await suite().admin.get('/api/issue/tracker')).body.length).to.equal(before);
  });

  it('ignores read-only fields, so a GET body can be sent back', async () => {
    const { admin } = suite();
    const res = await admin.post('/api/issue/tracker', { title: 'RO', id: 77777, uuid: 'x', created: 'x', modified: 'x', created_by: 5 });
    expect(res.status).to.equal(201);
    expect(res.body.id).to.not.equal(77777);
    const issue = await created(admin, '/api/issue/issue', { tracker_id: res.body.id, title: 'RO issue' });
    const put = await admin.put(`/api/issue/issue/${issue.id}`, { ...issue, classification: 'secret', title: 'RO issue 2' });
    expect(put.status).to.equal(200);
    expect(put.body.classification).to.equal('official');
  });

  it('accepts read names as aliases of write names, and refuses conflicting pairs', async () => {
    const { admin } = suite();
    const other = await created(admin, '/api/issue/tracker', { title: 'Alias' });
    const res = await admin.post('/api/issue/category', { tracker: other.id, title: 'via read name' });
    expect(res.status).to.equal(201);
    expect(res.body.tracker).to.equal(other.id);
    const conflict = await admin.post('/api/issue/category', { tracker: other.id, tracker_id: tracker.id, title: 'x' });
    expect(conflict.status).to.equal(400);
    expect(conflict.body).to.deep.equal({ tracker_id: ['Conflicting values for "tracker" and "tracker_id".'] });
    const same = await admin.post('/api/issue/category', { tracker: other.id, tracker_id: other.id, title: 'same' });
    expect(same.status).to.equal(201);
    const m2m = await admin.post('/api/issue/tracker', { title: 'm2m alias', admins: [suite().adminId] });
    expect(m2m.body.admins).to.deep.equal([suite().adminId]);
  });

  it('keeps remote_key unique per resource', async () => {
    const key = unique('ext');
    expect((await post('/api/issue/tracker', { title: 'a', remote_key: key })).status).to.equal(201);
    const dup = await post('/api/issue/tracker', { title: 'b', remote_key: key });
    expect(dup.status).to.equal(400);
    expect(dup.body).to.deep.equal({ remote_key: ['A record with this remote_key already exists.'] });
    expect((await post('/api/organisation/mitarbeitende', { vorname: 'a', nachname: 'b', remote_key: key })).status).to.equal(201);
    const found = await suite().admin.get(`/api/issue/tracker?remote_key=${key}`);
    expect(found.body).to.have.length(1);
  });

  describe('category colour (spec 2.3)', () => {
    for (const color of ['red', 'blue lighten-2', 'light-blue', 'teal darken-4', 'grey accent-1', 'orange lighten-5']) {
      it(`accepts "${color}"`, async () => {
        const res = await post('/api/issue/category', { tracker_id: tracker.id, title: 'c', color });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.color).to.equal(color);
      });
    }
    for (const color of ['blue  lighten-2', 'blue lighten-6', 'darken-1', 'Blue', 'blue darken-5', 'rainbow', 'blue lighten-2 accent-1']) {
      it(`refuses "${color}"`, async () => {
        const res = await post('/api/issue/category', { tracker_id: tracker.id, title: 'c', color });
        expect(res.status).to.equal(400);
        expect(res.body.color[0]).to.match(/is not a valid colour/);
      });
    }
  });

  describe('URL fields (issue 22.9): http or https with a host, the rule in the schema', () => {
    const UNITS = '/api/organisation/orgunit';
    for (const website of ['https://example.com', 'HTTP://EXAMPLE.COM/a?b=1#c', 'http://[::1]:8080/p', 'https://user:pw@example.com:443/']) {
      it(`accepts "${website}"`, async () => {
        const res = await post(UNITS, { title: unique('url'), website });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.website).to.equal(website);
      });
    }
    const refused = ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'vbscript:msgbox(1)', 'data:text/html,<script>alert(1)</script>', 'DATA:,x', 'mailto:a@example.com', 'ftp://example.com/x', 'http://', 'https://', 'http:///x', 'http://:80/', 'http://a@/x', '//example.com/x'];
    it('refuses other schemes and URLs without a host, on create and update, storing nothing', async () => {
      const unit = await created(suite().admin, UNITS, { title: unique('url'), website: 'https://example.com' });
      for (const website of refused) {
        const title = unique('bad-url');
        const res = await post(UNITS, { title, website });
        expect(res.status, website).to.equal(400);
        expect(res.body, website).to.deep.equal({ website: ['Enter a valid URL.'] });
        expect((await suite().admin.patch(`${UNITS}/${unit.id}`, { website })).body, website).to.deep.equal({ website: ['Enter a valid URL.'] });
        expect(await suite().service.db('organisation_orgunit').where({ title }).first(), website).to.equal(undefined);
      }
      expect((await suite().admin.get(`${UNITS}/${unit.id}`)).body.website).to.equal('https://example.com');
    });

    it('documents the rule in the schema, and it is the one the service applies', async () => {
      const doc = (await suite().admin.get('/api/schema/?format=json', { token: null })).body;
      const website = doc.components.schemas.OrganisationOrgunitRequest.properties.website as { pattern: string; format: string };
      expect(website.format).to.equal('uri');
      const pattern = new RegExp(website.pattern, 'u');
      for (const url of refused) expect(pattern.test(url), url).to.equal(false);
      expect(pattern.test('https://example.com/x')).to.equal(true);
    });
  });
});

describe('references', () => {
  it('an id below 1 names no record: Invalid pk, for keys and links alike', async () => {
    const res = await suite().admin.post('/api/issue/issue', { title: 't', tracker_id: 0, category_ids: [-3] });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ tracker_id: ['Invalid pk "0" - object does not exist.'], category_ids: ['Invalid pk "-3" - object does not exist.'] });
  });

  it('the schema names the resource every key and link refers to', async () => {
    const doc = (await suite().admin.get('/api/schema/?format=json', { token: null })).body;
    const issue = doc.components.schemas.IssueIssueRequest.properties;
    expect(issue.tracker_id['x-references']).to.equal('/api/issue/tracker');
    expect(issue.tracker_id.minimum).to.equal(1);
    expect(issue.tracker_id.description).to.include('Id of a `/api/issue/tracker` record.');
    expect(issue.category_ids.items['x-references']).to.equal('/api/issue/category');
    const bc = doc.components.schemas.BusinesscontextIssueRequest.properties;
    expect(bc.type_id['x-references']).to.equal('/api/businesscontext/issuetype');
  });
});
