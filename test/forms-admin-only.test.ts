/**
 * `admin_only` form questions: seen only by the template's admins (the folder's admins and creator,
 * the template's creator), and answered only by them; others are not asked for them, required or
 * not, and cannot set or change their answers.
 */
import { expect } from 'chai';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const FORMS = '/api/forms/form';
const PERMS = ['folder', 'template', 'section', 'question', 'choice', 'form'].flatMap((m) => ['view', 'add', 'change', 'delete'].map((a) => `forms.${a}_${m}`));

describe('forms: admin-only questions', () => {
  let admin: TestUser;
  let user: TestUser;
  let template: any;
  let open: any;
  let secret: any;

  before(async () => {
    [admin, user] = [await makeUser({ permissions: PERMS }), await makeUser({ permissions: PERMS })];
    const folder = await created(suite().admin, '/api/forms/folder', { title: unique('forms'), visibility: 'protected', admin_ids: [admin.id], team_member_ids: [user.id] });
    template = await created(suite().admin, '/api/forms/template', { title: 'Review', folder_id: folder.id });
    open = await created(suite().admin, '/api/forms/question', { template_id: template.id, text: 'Your name?', type: 'text', required: true });
    secret = await created(suite().admin, '/api/forms/question', { template_id: template.id, text: 'Rating', type: 'number', required: true, admin_only: true });
  });

  it('is listed and served to the template admins only', async () => {
    const listed = async (who: TestUser) => ((await who.client.get(`/api/forms/question?template=${template.id}`)).body as any[]).map((r) => r.id);
    expect(await listed(admin)).to.have.members([open.id, secret.id]);
    expect(await listed(user)).to.deep.equal([open.id]);
    expect((await user.client.get(`/api/forms/question/${secret.id}`)).status).to.equal(404);
  });

  it('is not asked of others: they submit without it, and may not answer it', async () => {
    const mine = await user.client.post(FORMS, { template_id: template.id, state: 'submitted', answers: { [open.id]: 'Ann' } });
    expect(mine.status, mine.text).to.equal(201);
    const sneaky = await user.client.post(FORMS, { template_id: template.id, state: 'submitted', answers: { [open.id]: 'Ann', [secret.id]: 5 } });
    expect(sneaky.status).to.equal(400);
    expect(sneaky.body).to.deep.equal({ answers: [`Question ${secret.id} does not belong to template ${template.id}.`] });
    const theirs = await admin.client.post(FORMS, { template_id: template.id, state: 'submitted', answers: { [open.id]: 'Bob' } });
    expect(theirs.body).to.deep.equal({ answers: [`Question ${secret.id} must be answered.`] });
  });

  it("keeps an admin's answer when another user edits the form, and refuses changing it", async () => {
    const form = await created(admin.client, FORMS, { template_id: template.id, answers: { [open.id]: 'Cid', [secret.id]: 4 } });
    const edited = await user.client.patch(`${FORMS}/${form.id}`, { state: 'submitted', answers: { ...form.answers, [open.id]: 'Cid B.' } });
    expect(edited.status, edited.text).to.equal(200);
    expect(edited.body.answers).to.deep.equal({ [open.id]: 'Cid B.', [secret.id]: 4 });
    const changed = await user.client.patch(`${FORMS}/${form.id}`, { answers: { ...form.answers, [secret.id]: 1 } });
    expect(changed.body).to.deep.equal({ answers: [`Question ${secret.id} does not belong to template ${template.id}.`] });
    expect((await admin.client.patch(`${FORMS}/${form.id}`, { answers: { ...form.answers, [secret.id]: 1 } })).status).to.equal(200);
  });
});
