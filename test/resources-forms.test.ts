/**
 * A filled form's answers against its template's questions (the form's `validate` hook): keys are
 * questions of the form's own template, each value fits its question's type (text, number, a real
 * date, a choice of that very question, a list of them when several are allowed), and required
 * questions are answered unless the form is a draft.
 */
import { expect } from 'chai';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const FORMS = '/api/forms/form';

describe('forms: answers follow the template', () => {
  let template: any;
  let otherTemplate: any;
  let q: Record<'text' | 'number' | 'date' | 'choice' | 'multi', any>;
  let choices: Record<'yes' | 'no' | 'red' | 'blue', any>;
  let foreignQuestion: any;
  let foreignChoice: any;
  let complete: Record<string, unknown>;

  const question = (templateId: number, type: string, extra: object = {}) =>
    created(suite().admin, '/api/forms/question', { template_id: templateId, text: `A ${type} question`, type, ...extra });
  const choice = (questionId: number, label: string) => created(suite().admin, '/api/forms/choice', { question_id: questionId, label, value: label });
  const submit = (answers: Record<string, unknown>, state = 'submitted', templateId = template.id) =>
    suite().admin.post(FORMS, { template_id: templateId, answers, state });

  before(async () => {
    const folder = await created(suite().admin, '/api/forms/folder', { title: 'Answers' });
    template = await created(suite().admin, '/api/forms/template', { title: 'Incident report', folder_id: folder.id });
    otherTemplate = await created(suite().admin, '/api/forms/template', { title: 'Other', folder_id: folder.id });
    q = {
      text: await question(template.id, 'text', { required: true }),
      number: await question(template.id, 'number'),
      date: await question(template.id, 'date', { required: true }),
      choice: await question(template.id, 'choice'),
      multi: await question(template.id, 'choice', { multiple: true }),
    };
    choices = { yes: await choice(q.choice.id, 'yes'), no: await choice(q.choice.id, 'no'), red: await choice(q.multi.id, 'red'), blue: await choice(q.multi.id, 'blue') };
    foreignQuestion = await question(otherTemplate.id, 'choice');
    foreignChoice = await choice(foreignQuestion.id, 'elsewhere');
    complete = { [q.text.id]: 'Smoke in room 4', [q.number.id]: 2.5, [q.date.id]: '2026-02-28', [q.choice.id]: choices.yes.id, [q.multi.id]: [choices.red.id, choices.blue.id] };
  });

  it('accepts answers that fit every question, and serves them back', async () => {
    const res = await submit(complete);
    expect(res.status, res.text).to.equal(201);
    expect(res.body.answers).to.deep.equal(complete);
  });

  it('leaves optional questions unanswered, or answered with null', async () => {
    const res = await submit({ [q.text.id]: 'x', [q.date.id]: '2026-01-01', [q.number.id]: null });
    expect(res.status, res.text).to.equal(201);
  });

  it("refuses keys that are not questions of the form's own template", async () => {
    const res = await submit({ ...complete, [foreignQuestion.id]: foreignChoice.id, 999999: 'x' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      answers: [`Question ${foreignQuestion.id} does not belong to template ${template.id}.`, `Question 999999 does not belong to template ${template.id}.`],
    });
  });

  it('refuses values that do not fit the question type, every one at once', async () => {
    const res = await submit({ [q.text.id]: 5, [q.number.id]: '5', [q.date.id]: '2026-02-30', [q.choice.id]: foreignChoice.id, [q.multi.id]: choices.red.id });
    expect(res.status).to.equal(400);
    expect(res.body.answers).to.have.members([
      `Answer to question ${q.text.id} must be a string.`,
      `Answer to question ${q.number.id} must be a number.`,
      `Answer to question ${q.date.id} must be a date in the format YYYY-MM-DD.`,
      `Answer to question ${q.choice.id} must be the id of one of its choices.`,
      `Answer to question ${q.multi.id} must be a list of ids of its choices.`,
    ]);
    expect(Object.keys(res.body)).to.deep.equal(['answers']);
  });

  it("refuses another question's choice and a date in another format", async () => {
    const res = await submit({ ...complete, [q.date.id]: '28.02.2026', [q.multi.id]: [choices.red.id, choices.yes.id] });
    expect(res.body.answers).to.have.members([
      `Answer to question ${q.date.id} must be a date in the format YYYY-MM-DD.`,
      `Answer to question ${q.multi.id} must be a list of ids of its choices.`,
    ]);
  });

  it('requires the required questions unless the form is a draft', async () => {
    const missing = await submit({ [q.text.id]: '', [q.number.id]: 1 });
    expect(missing.status).to.equal(400);
    expect(missing.body.answers).to.have.members([`Question ${q.text.id} must be answered.`, `Question ${q.date.id} must be answered.`]);
    const draft = await submit({ [q.number.id]: 1 }, 'draft');
    expect(draft.status, draft.text).to.equal(201);
    expect(draft.body.state).to.equal('draft');
    expect((await suite().admin.post(FORMS, { template_id: template.id })).status, 'a new form is a draft').to.equal(201);
  });

  it('checks the answers again when a draft is submitted', async () => {
    const { admin } = suite();
    const draft = (await submit({ [q.text.id]: 'half done' }, 'draft')).body;
    const early = await admin.patch(`${FORMS}/${draft.id}`, { state: 'submitted' });
    expect(early.status).to.equal(400);
    expect(early.body).to.deep.equal({ answers: [`Question ${q.date.id} must be answered.`] });
    expect((await admin.get(`${FORMS}/${draft.id}`)).body).to.deep.equal(draft);
    const done = await admin.patch(`${FORMS}/${draft.id}`, { state: 'submitted', answers: { ...draft.answers, [q.date.id]: '2026-03-01' } });
    expect(done.status, done.text).to.equal(200);
    expect(done.body.state).to.equal('submitted');
  });

  it('checks the answers against the new template when the template changes', async () => {
    const form = (await submit(complete)).body;
    const res = await suite().admin.patch(`${FORMS}/${form.id}`, { template_id: otherTemplate.id });
    expect(res.status).to.equal(400);
    expect(res.body.answers).to.include(`Question ${q.text.id} does not belong to template ${otherTemplate.id}.`);
  });

});
