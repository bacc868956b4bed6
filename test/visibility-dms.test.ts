/**
 * Protected DMS folders and their documents (issue 8), every role against every operation: list,
 * detail, PATCH, DELETE, naming a folder as a foreign key, and the three batch endpoints; the ways
 * into a protected folder (admins, creator, team, org units through the main unit or a current
 * membership) and the ways that must not count (ended or future memberships, a former employee);
 * and `inherit_permissions` up the folder tree. Every user is a non-superuser holding every DMS
 * permission, except the superuser.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, invalidPk, makeUser, unique, type TestUser } from './support/fixtures.js';
import { countQueries } from './support/queries.js';

const DMS_PERMS = ['folder', 'documenttype', 'document'].flatMap((m) => ['view', 'add', 'change', 'delete'].map((a) => `dms.${a}_${m}`));
const ROLES = [
  'superuser',
  'admin',
  'creator',
  'team member',
  'unit member',
  'membership member',
  'ended membership',
  'future membership',
  'former employee',
  'unrelated',
] as const;
type Role = (typeof ROLES)[number];
const SEES: Role[] = ['superuser', 'admin', 'creator', 'team member', 'unit member', 'membership member'];
const CHANGES: Role[] = ['superuser', 'admin', 'creator'];
const sees = (role: Role) => SEES.includes(role);
/** The status a write answers: done when the role may change, 403 when it only sees, else 404. */
const status = (role: Role, done: number) => (!sees(role) ? 404 : CHANGES.includes(role) ? done : 403);

describe('object visibility (DMS folders and documents)', function () {
  this.timeout(120_000);
  const users = {} as Record<Role, TestUser>;
  let unit: any;
  let open: any;
  const as = (role: Role) => users[role].client;
  /** A protected folder made by the creator through the API, with admin, team and unit. */
  const protectedFolder = async (extra: object = {}) =>
    created(as('creator'), '/api/dms/folder', {
      title: unique('protected'),
      visibility: 'protected',
      admin_ids: [users.admin.id],
      team_member_ids: [users['team member'].id],
      orgunit_ids: [unit.id],
      ...extra,
    });
  const document = (folder: any, extra: object = {}) => created(suite().admin, '/api/dms/document', { title: unique('doc'), folder_id: folder.id, ...extra });
  const current = async (doc: any) => (await suite().admin.get(`/api/dms/document/${doc.id}`)).body;

  before(async () => {
    const { admin } = suite();
    users.superuser = await makeUser({ superuser: true });
    for (const role of ROLES.filter((r) => r !== 'superuser')) users[role] = await makeUser({ permissions: DMS_PERMS });
    unit = await created(admin, '/api/organisation/orgunit', { title: unique('unit') });
    const employee = (role: Role, extra: object = {}) =>
      created(admin, '/api/organisation/mitarbeitende', { vorname: role, nachname: unique('x'), user_id: users[role].id, ...extra });
    await employee('unit member', { orgunit_id: unit.id });
    await employee('former employee', { orgunit_id: unit.id, entry_date: '2010-01-01', exit_date: '2020-12-31' });
    const periods: [Role, string, string | null][] = [
      ['membership member', '2020-01-01', null],
      ['ended membership', '2020-01-01', '2020-12-31'],
      ['future membership', '2999-01-01', null],
    ];
    for (const [role, start, end] of periods) {
      await created(admin, '/api/organisation/membership', { employee_id: (await employee(role)).id, orgunit_id: unit.id, start, end });
    }
    open = await created(admin, '/api/dms/folder', { title: unique('open') });
  });

  for (const role of ROLES) {
    describe(role, () => {
      it(`${sees(role) ? 'finds' : 'does not find'} a protected folder and its documents in lists and details`, async () => {
        const folder = await protectedFolder();
        const doc = await document(folder);
        const listed = async (path: string, id: number) => ((await as(role).get(path)).body as any[]).some((r) => r.id === id);
        expect(await listed('/api/dms/folder', folder.id)).to.equal(sees(role));
        expect(await listed('/api/dms/document', doc.id)).to.equal(sees(role));
        expect(await listed(`/api/dms/document?folder=${folder.id}`, doc.id)).to.equal(sees(role));
        for (const path of [`/api/dms/folder/${folder.id}`, `/api/dms/document/${doc.id}`]) {
          const res = await as(role).get(path);
          expect(res.status, path).to.equal(sees(role) ? 200 : 404);
          if (!sees(role)) expect(res.body).to.deep.equal({ detail: 'Not found.' });
        }
      });

      it(`PATCH, PUT and DELETE of the folder and its documents: ${status(role, 200)}`, async () => {
        const folder = await protectedFolder();
        const doc = await document(folder);
        expect((await as(role).patch(`/api/dms/folder/${folder.id}`, { description: role })).status).to.equal(status(role, 200));
        expect((await as(role).patch(`/api/dms/folder/${folder.id}`, { visibility: 'normal' })).status).to.equal(status(role, 200));
        expect((await as(role).patch(`/api/dms/document/${doc.id}`, { description: role })).status).to.equal(status(role, 200));
        expect((await as(role).put(`/api/dms/document/${doc.id}`, { title: doc.title, folder_id: folder.id })).status).to.equal(status(role, 200));
        const victim = await document(folder);
        expect((await as(role).delete(`/api/dms/document/${victim.id}`)).status).to.equal(status(role, 204));
        expect((await suite().admin.get(`/api/dms/document/${victim.id}`)).status).to.equal(status(role, 204) === 204 ? 404 : 200);
        const empty = await protectedFolder();
        expect((await as(role).delete(`/api/dms/folder/${empty.id}`)).status).to.equal(status(role, 204));
      });

      it(`naming the folder as a foreign key ${sees(role) ? 'works' : 'answers Invalid pk'}, on create, move and batch_move`, async () => {
        const folder = await protectedFolder();
        const posted = await as(role).post('/api/dms/document', { title: 'by reference', folder_id: folder.id });
        expect(posted.status).to.equal(sees(role) ? 201 : 400);
        if (!sees(role)) expect(posted.body).to.deep.equal({ folder_id: invalidPk(folder.id) });
        const sub = await as(role).post('/api/dms/folder', { title: 'sub', parent_id: folder.id });
        if (!sees(role)) expect(sub.body).to.deep.equal({ parent_id: invalidPk(folder.id) });
        else expect(sub.status).to.equal(201);
        const [moved, batched] = [await document(open), await document(open)];
        const patch = await as(role).patch(`/api/dms/document/${moved.id}`, { folder_id: folder.id });
        const batch = await as(role).post('/api/dms/batch_move', { document_ids: [batched.id], folder_id: folder.id });
        if (sees(role)) {
          expect([patch.status, batch.status]).to.deep.equal([200, 200]);
          expect((await current(batched)).folder).to.equal(folder.id);
        } else {
          expect(patch.body).to.deep.equal({ folder_id: invalidPk(folder.id) });
          expect(batch.body).to.deep.equal({ folder_id: invalidPk(folder.id) });
          expect(await current(batched)).to.deep.equal(batched);
        }
      });

      for (const [path, body] of [
        ['/api/dms/batch_archive', {}],
        ['/api/dms/batch_move', { folder_id: 0 }],
        ['/api/dms/batch_delete', {}],
      ] as const) {
        it(`${path} over its documents: ${sees(role) ? (CHANGES.includes(role) ? '200' : '403') : '400 Invalid pk'}, all or nothing`, async () => {
          const folder = await protectedFolder();
          const docs = [await document(open), await document(folder), await document(open)];
          const res = await as(role).post(path, { document_ids: docs.map((d) => d.id), ...('folder_id' in body ? { folder_id: open.id } : {}) });
          if (!sees(role)) {
            expect(res.status).to.equal(400);
            expect(res.body).to.deep.equal({ document_ids: invalidPk(docs[1].id) });
          } else expect(res.status, res.text).to.equal(CHANGES.includes(role) ? 200 : 403);
          if (res.status !== 200) for (const d of docs) expect(await current(d)).to.deep.equal(d);
        });
      }

      it(`in a normal folder: sees and changes the documents, ${role === 'superuser' ? 'and changes' : 'but may not change'} the folder`, async () => {
        const doc = await document(open);
        expect((await as(role).get(`/api/dms/document/${doc.id}`)).status).to.equal(200);
        expect((await as(role).patch(`/api/dms/document/${doc.id}`, { description: role })).status).to.equal(200);
        expect((await as(role).post('/api/dms/batch_archive', { document_ids: [doc.id] })).status).to.equal(200);
        expect((await as(role).patch(`/api/dms/folder/${open.id}`, { description: role })).status).to.equal(role === 'superuser' ? 200 : 403);
      });
    });
  }

  it("a team member changes the documents they own or created in a protected folder, and no others", async () => {
    const team = users['team member'];
    const folder = await protectedFolder();
    const owned = await document(folder, { owner_id: team.id });
    const theirs = await created(team.client, '/api/dms/document', { title: unique('mine'), folder_id: folder.id });
    const other = await document(folder);
    expect((await team.client.patch(`/api/dms/document/${owned.id}`, { description: 'x' })).status).to.equal(200);
    expect((await team.client.patch(`/api/dms/document/${theirs.id}`, { description: 'x' })).status).to.equal(200);
    expect((await team.client.patch(`/api/dms/document/${other.id}`, { description: 'x' })).status).to.equal(403);
    const batch = await team.client.post('/api/dms/batch_archive', { document_ids: [owned.id, theirs.id, other.id] });
    expect(batch.status).to.equal(403);
    expect((await team.client.post('/api/dms/batch_archive', { document_ids: [owned.id, theirs.id] })).body).to.deep.equal({ archived: 2 });
  });

  describe('inherit_permissions', () => {
    it("takes the parent's visibility, admins, creator, team and units, up the tree, ignoring the folder's own", async () => {
      const { admin } = suite();
      const parent = await protectedFolder();
      // its own settings would open it to everyone and make the unrelated user its admin
      const own = { visibility: 'normal', admin_ids: [users.unrelated.id], inherit_permissions: true };
      const child = await created(admin, '/api/dms/folder', { title: 'child', parent_id: parent.id, ...own });
      const grandchild = await created(admin, '/api/dms/folder', { title: 'grandchild', parent_id: child.id, ...own });
      const docs = [await document(child), await document(grandchild)];
      for (const role of ROLES) {
        for (const path of [`/api/dms/folder/${child.id}`, `/api/dms/folder/${grandchild.id}`, ...docs.map((d) => `/api/dms/document/${d.id}`)]) {
          expect((await as(role).get(path)).status, `${role} GET ${path}`).to.equal(sees(role) ? 200 : 404);
        }
        expect((await as(role).patch(`/api/dms/folder/${grandchild.id}`, { description: role })).status, role).to.equal(status(role, 200));
        expect((await as(role).post('/api/dms/batch_archive', { document_ids: docs.map((d) => d.id) })).status, role).to.equal(!sees(role) ? 400 : status(role, 200));
      }
      // stopping inheritance in the middle gives the grandchild its parent's (the child's) own settings
      expect((await admin.patch(`/api/dms/folder/${child.id}`, { inherit_permissions: false })).status).to.equal(200);
      for (const role of ROLES) expect((await as(role).get(`/api/dms/document/${docs[1].id}`)).status, role).to.equal(200);
      expect((await as('unrelated').patch(`/api/dms/folder/${grandchild.id}`, { description: 'mine now' })).status).to.equal(200);
      expect((await as('team member').patch(`/api/dms/folder/${grandchild.id}`, { description: 'not mine' })).status).to.equal(403);
    });

    it('follows the folder when it moves, and a root folder that inherits keeps its own settings', async () => {
      const { admin } = suite();
      const parent = await protectedFolder();
      const child = await created(admin, '/api/dms/folder', { title: 'mover', parent_id: parent.id, inherit_permissions: true });
      expect((await as('unrelated').get(`/api/dms/folder/${child.id}`)).status).to.equal(404);
      expect((await admin.patch(`/api/dms/folder/${child.id}`, { parent_id: open.id })).status).to.equal(200);
      expect((await as('unrelated').get(`/api/dms/folder/${child.id}`)).status).to.equal(200);
      const root = await created(admin, '/api/dms/folder', { title: 'root', visibility: 'protected', inherit_permissions: true, team_member_ids: [users.unrelated.id] });
      expect((await as('unrelated').get(`/api/dms/folder/${root.id}`)).status).to.equal(200);
      expect((await as('team member').get(`/api/dms/folder/${root.id}`)).status).to.equal(404);
    });
  });

  it('a document list stays one query with the folder rules applied', async () => {
    // the token's first use writes last_used; count a later request
    await as('unit member').get('/api/auth/me');
    expect(await countQueries(() => as('unit member').get('/api/dms/document'))).to.be.at.most(2);
  });
});
