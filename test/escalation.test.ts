/** Users and groups as resources, and no privilege escalation through them (issue 3, CONTRACT 7). */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';

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
