/** Users and groups as resources, and no privilege escalation through them (issue 3, CONTRACT 7). */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { SessionClient } from './support/browser-session.js';

const USER_ADMIN = ['users.view_user', 'users.add_user', 'users.change_user', 'users.delete_user'];
const GROUP_ADMIN = ['users.view_customgroup', 'users.add_customgroup', 'users.change_customgroup', 'users.delete_customgroup'];

describe('users and groups', () => {
  it('never returns a password, and stores a scrypt hash', async () => {
    const res = await suite().admin.post('/api/user', { username: unique('pw'), password: 'long-enough-pw' });
    expect(res.status).to.equal(201);
    expect(res.body).to.not.have.property('password');
    const row = await suite().service.db('users').where({ id: res.body.id }).first('password');
    expect(row.password).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect((await suite().admin.get(`/api/user/${res.body.id}`)).body).to.not.have.property('password');
  });

  it('validates passwords, unique usernames and permission names', async () => {
    const { admin } = suite();
    expect((await admin.post('/api/user', { username: unique('short'), password: 'short' })).body).to.deep.equal({
      password: ['Ensure this field has at least 8 characters.'],
    });
    const name = unique('dup');
    await created(admin, '/api/user', { username: name });
    expect((await admin.post('/api/user', { username: name })).body).to.deep.equal({ username: ['A record with this username already exists.'] });
    const bad = await admin.post('/api/customgroup', { name: unique('g'), permissions: ['issues.view_issue', 'issues.fly_issue'] });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.equal({ permissions: ['Unknown permission "issues.fly_issue".'] });
  });

  it('serves members both ways: user.groups and group.users', async () => {
    const { admin } = suite();
    const group = await created(admin, '/api/customgroup', { name: unique('g'), permissions: ['issues.view_issue', 'issues.view_issue'] });
    expect(group.permissions).to.deep.equal(['issues.view_issue']);
    const user = await created(admin, '/api/user', { username: unique('m'), group_ids: [group.id] });
    expect(user.groups).to.deep.equal([group.id]);
    expect((await admin.get(`/api/customgroup/${group.id}`)).body.users).to.deep.equal([user.id]);
  });
});

describe('privilege escalation is refused', () => {
  it('only a superuser sets is_superuser', async () => {
    const manager = await makeUser({ permissions: USER_ADMIN });
    expect((await manager.client.post('/api/user', { username: unique('x'), is_superuser: true })).status).to.equal(403);
    expect((await manager.client.patch(`/api/user/${manager.id}`, { is_superuser: true })).status).to.equal(403);
    expect((await manager.client.post('/api/user', { username: unique('x'), is_superuser: false })).status).to.equal(201);
    const boss = await makeUser({ superuser: true });
    const promoted = await boss.client.patch(`/api/user/${manager.id}`, { is_superuser: true });
    expect(promoted.status).to.equal(200);
    expect(promoted.body.is_superuser).to.equal(true);
  });

  it('a non-superuser cannot change or delete a superuser', async () => {
    const manager = await makeUser({ permissions: USER_ADMIN });
    const boss = await makeUser({ superuser: true });
    expect((await manager.client.patch(`/api/user/${boss.id}`, { password: 'taken-over-now' })).status).to.equal(403);
    expect((await manager.client.delete(`/api/user/${boss.id}`)).status).to.equal(403);
    expect((await manager.client.get(`/api/user/${boss.id}`)).status).to.equal(200);
  });

  it('a group can only be given permissions its creator holds', async () => {
    const manager = await makeUser({ permissions: [...GROUP_ADMIN, 'issues.view_issue'] });
    expect((await manager.client.post('/api/customgroup', { name: unique('g'), permissions: ['issues.view_issue'] })).status).to.equal(201);
    const res = await manager.client.post('/api/customgroup', { name: unique('g'), permissions: ['issues.view_issue', 'issues.delete_issue'] });
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.equal({ detail: 'You do not have permission to perform this action.' });
  });

  it('a group holding more than the caller cannot be changed or deleted by the caller', async () => {
    const manager = await makeUser({ permissions: GROUP_ADMIN });
    const strong = await created(suite().admin, '/api/customgroup', { name: unique('strong'), permissions: ['dms.delete_document'] });
    expect((await manager.client.patch(`/api/customgroup/${strong.id}`, { user_ids: [manager.id] })).status).to.equal(403);
    expect((await manager.client.patch(`/api/customgroup/${strong.id}`, { permissions: [] })).status).to.equal(403);
    expect((await manager.client.delete(`/api/customgroup/${strong.id}`)).status).to.equal(403);
    expect((await suite().admin.get(`/api/customgroup/${strong.id}`)).body.permissions).to.deep.equal(['dms.delete_document']);
  });

  it('a user cannot join, or be put into, a group with permissions the caller lacks', async () => {
    const manager = await makeUser({ permissions: USER_ADMIN });
    const strong = await created(suite().admin, '/api/customgroup', { name: unique('strong'), permissions: ['dms.delete_document'] });
    expect((await manager.client.patch(`/api/user/${manager.id}`, { group_ids: [strong.id] })).status).to.equal(403);
    expect((await manager.client.post('/api/user', { username: unique('x'), group_ids: [strong.id] })).status).to.equal(403);
    const me = await manager.client.get('/api/auth/me');
    expect(me.body.permissions).to.not.include('dms.delete_document');
  });

  it('a user holding more than the caller cannot be taken over', async () => {
    const manager = await makeUser({ permissions: USER_ADMIN });
    const strong = await makeUser({ permissions: ['dms.delete_document'] });
    expect((await manager.client.patch(`/api/user/${strong.id}`, { password: 'taken-over-now' })).status).to.equal(403);
    const peer = await makeUser({ permissions: ['users.view_user'] });
    expect((await manager.client.patch(`/api/user/${peer.id}`, { first_name: 'Pat' })).status).to.equal(200);
  });
});

/**
 * Issue 8.1: what a user cannot do through their own rights they cannot obtain by editing others.
 * Object access counts: a user or group that opens a tracker the caller cannot see (or change)
 * holds more than the caller, even with no permissions at all.
 */
describe('no escalation through object access, users and groups', () => {
  const VIEW = ['issues.view_tracker', 'issues.view_issue', 'issues.view_issuecategory'];
  let manager: Awaited<ReturnType<typeof makeUser>>;
  let team: { id: number };
  let confidentialAdmin: Awaited<ReturnType<typeof makeUser>>;
  let normalAdmin: Awaited<ReturnType<typeof makeUser>>;
  let protectedTracker: { id: number };
  let weakGroup: { id: number };
  let superuser: Awaited<ReturnType<typeof makeUser>>;

  before(async () => {
    const { admin } = suite();
    manager = await makeUser({ permissions: [...USER_ADMIN, ...GROUP_ADMIN, ...VIEW] });
    team = await created(admin, '/api/customgroup', { name: unique('team'), permissions: [] });
    protectedTracker = await created(admin, '/api/issue/tracker', { title: unique('prot'), visibility: 'protected', team_ids: [team.id] });
    confidentialAdmin = await makeUser({ permissions: VIEW });
    await created(admin, '/api/issue/tracker', { title: unique('conf'), visibility: 'confidential', admin_ids: [confidentialAdmin.id] });
    normalAdmin = await makeUser({ permissions: VIEW });
    await created(admin, '/api/issue/tracker', { title: unique('norm'), visibility: 'normal', admin_ids: [normalAdmin.id] });
    weakGroup = await created(admin, '/api/customgroup', { name: unique('weak'), permissions: ['issues.view_tracker'] });
    superuser = await makeUser({ superuser: true });
  });

  it('cannot join, or put anyone into, a group that is the team of a tracker the caller cannot see', async () => {
    const bystander = await makeUser();
    const c = manager.client;
    expect((await c.patch(`/api/customgroup/${team.id}`, { user_ids: [bystander.id, manager.id] })).status).to.equal(403);
    expect((await c.patch(`/api/customgroup/${team.id}`, { name: unique('renamed') })).status).to.equal(403);
    expect((await c.put(`/api/customgroup/${team.id}`, { name: unique('renamed'), permissions: [], user_ids: [] })).status).to.equal(403);
    expect((await c.delete(`/api/customgroup/${team.id}`)).status).to.equal(403);
    expect((await c.patch(`/api/user/${manager.id}`, { group_ids: [team.id] })).status).to.equal(403);
    expect((await c.patch(`/api/user/${bystander.id}`, { group_ids: [team.id] })).status).to.equal(403);
    expect((await c.post('/api/user', { username: unique('x'), group_ids: [team.id] })).status).to.equal(403);
    expect((await c.post('/api/customgroup', { name: unique('g'), permissions: [] })).status).to.equal(201);
    expect((await suite().admin.get(`/api/customgroup/${team.id}`)).body.users).to.deep.equal([]);
    expect((await c.get(`/api/issue/tracker/${protectedTracker.id}`)).status).to.equal(404);
  });

  it('cannot take over a user who administers a tracker the caller cannot see', async () => {
    const c = manager.client;
    const before = await suite().service.db('users').where({ id: confidentialAdmin.id }).first('password', 'is_active');
    expect((await c.patch(`/api/user/${confidentialAdmin.id}`, { password: 'taken-over-now' })).status).to.equal(403);
    expect((await c.patch(`/api/user/${confidentialAdmin.id}`, { is_active: false })).status).to.equal(403);
    expect((await c.patch(`/api/user/${confidentialAdmin.id}`, { group_ids: [] })).status).to.equal(403);
    expect((await c.put(`/api/user/${confidentialAdmin.id}`, { username: confidentialAdmin.username, password: 'taken-over-now' })).status).to.equal(403);
    expect((await c.delete(`/api/user/${confidentialAdmin.id}`)).status).to.equal(403);
    expect(await suite().service.db('users').where({ id: confidentialAdmin.id }).first('password', 'is_active')).to.deep.equal(before);
    const signIn = await new SessionClient(suite().service.url).login(confidentialAdmin.username, 'taken-over-now');
    expect(signIn.status).to.equal(400);
    await suite().service.db('login_failures').delete();
  });

  it('cannot take over a user who may change a record the caller can only see', async () => {
    const res = await manager.client.patch(`/api/user/${normalAdmin.id}`, { password: 'taken-over-now' });
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.equal({ detail: 'You do not have permission to perform this action.' });
  });

  it('cannot put a superuser into a group, take one out, or create a group holding one', async () => {
    const c = manager.client;
    expect((await c.patch(`/api/customgroup/${weakGroup.id}`, { user_ids: [superuser.id] })).status).to.equal(403);
    expect((await c.post('/api/customgroup', { name: unique('g'), permissions: [], user_ids: [superuser.id] })).status).to.equal(403);
    const holding = await created(suite().admin, '/api/customgroup', { name: unique('h'), permissions: [], user_ids: [superuser.id] });
    expect((await c.patch(`/api/customgroup/${holding.id}`, { user_ids: [] })).status).to.equal(403);
    expect((await c.patch(`/api/user/${superuser.id}`, { first_name: 'Eve' })).status).to.equal(403);
    expect((await suite().admin.get(`/api/customgroup/${weakGroup.id}`)).body.users).to.deep.equal([]);
  });

  it('still manages users and groups that hold no more than the caller', async () => {
    const c = manager.client;
    const peer = await makeUser({ permissions: ['issues.view_tracker'] });
    expect((await c.patch(`/api/customgroup/${weakGroup.id}`, { user_ids: [peer.id, manager.id] })).status).to.equal(200);
    expect((await c.patch(`/api/user/${peer.id}`, { password: 'a-new-password', is_active: true })).status).to.equal(200);
    expect((await c.patch(`/api/customgroup/${weakGroup.id}`, { user_ids: [manager.id] })).status).to.equal(200);
    const own = await created(c, '/api/customgroup', { name: unique('own'), permissions: ['issues.view_issue'], user_ids: [peer.id] });
    expect(own.users).to.deep.equal([peer.id]);
    expect((await c.delete(`/api/customgroup/${own.id}`)).status).to.equal(204);
  });
});

/**
 * Records that carry access for the people they name (an employee's account opens the protected
 * folders of the employee's unit): writing one must not open to anyone, the writer included, what
 * the writer cannot see themselves.
 */
describe('no escalation through records that carry access', () => {
  const HR = ['organisation.view_mitarbeitende', 'organisation.add_mitarbeitende', 'organisation.change_mitarbeitende', 'organisation.view_membership', 'organisation.add_membership', 'organisation.change_membership', 'organisation.view_orgunit', 'dms.view_folder', 'dms.view_document'];
  let hr: Awaited<ReturnType<typeof makeUser>>;
  let unit: { id: number };
  let openUnit: { id: number };
  let folder: { id: number };

  before(async () => {
    const { admin } = suite();
    hr = await makeUser({ permissions: HR });
    unit = await created(admin, '/api/organisation/orgunit', { title: unique('unit') });
    openUnit = await created(admin, '/api/organisation/orgunit', { title: unique('open-unit') });
    folder = await created(admin, '/api/dms/folder', { title: unique('secret'), visibility: 'protected', orgunit_ids: [unit.id] });
  });

  it('cannot make itself, or anyone, an employee of a unit whose protected folder it cannot see', async () => {
    const c = hr.client;
    const other = await makeUser();
    expect((await c.post('/api/organisation/mitarbeitende', { vorname: 'Eve', nachname: 'Self', user_id: hr.id, orgunit_id: unit.id })).status).to.equal(403);
    expect((await c.post('/api/organisation/mitarbeitende', { vorname: 'Otto', nachname: 'Other', user_id: other.id, orgunit_id: unit.id })).status).to.equal(403);
    const plain = await created(c, '/api/organisation/mitarbeitende', { vorname: 'Pia', nachname: 'Plain', orgunit_id: unit.id });
    expect((await c.patch(`/api/organisation/mitarbeitende/${plain.id}`, { user_id: hr.id })).status).to.equal(403);
    const mine = await created(c, '/api/organisation/mitarbeitende', { vorname: 'Eve', nachname: 'Elsewhere', user_id: hr.id, orgunit_id: openUnit.id });
    expect((await c.patch(`/api/organisation/mitarbeitende/${mine.id}`, { orgunit_id: unit.id })).status).to.equal(403);
    expect((await c.post('/api/organisation/membership', { employee_id: mine.id, orgunit_id: unit.id })).status).to.equal(403);
    expect((await c.get(`/api/dms/folder/${folder.id}`)).status).to.equal(404);
    expect((await suite().admin.get(`/api/organisation/mitarbeitende/${plain.id}`)).body.user).to.equal(null);
  });

  it('still writes such records where they open nothing beyond the writer', async () => {
    const c = hr.client;
    const mine = await created(c, '/api/organisation/mitarbeitende', { vorname: 'Eve', nachname: 'Open', user_id: hr.id, orgunit_id: openUnit.id });
    expect((await c.patch(`/api/organisation/mitarbeitende/${mine.id}`, { nachname: 'Renamed' })).status).to.equal(200);
    expect((await c.post('/api/organisation/membership', { employee_id: mine.id, orgunit_id: openUnit.id })).status).to.equal(201);
  });
});
