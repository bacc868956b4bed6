/** Forms module (Formulare): folders, templates with sections, questions and choices, and filled-in forms. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, type HookContext, m2m, positionField, type RecordReader, titleField } from '../engine/declare/index.js';
import { isCalendarDate } from '../engine/fields/values.js';

export const moduleLabel = defineModule({ name: 'forms', label: 'Forms', labelDe: 'Formulare' });

export const folder = defineResource({
  module: 'forms',
  name: 'folder',
  title: 'Form folder',
  description:
    'A folder of form templates, organised as a tree; it decides who sees and uses its templates. ' +
    'Changing or deleting it needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the folder.'),
    description: descriptionField('What the folder contains (markdown).'),
    visibility: field.enum({
      values: ['public', 'protected', 'private'],
      default: 'public',
      description: 'public: every user with the view permission; protected: its admins, its creator and its team members only; private: its admins and its creator only.',
    }),
    inherit_permissions: field.boolean({
      default: false,
      description:
        "Take visibility, admins, creator and team from the parent folder (up the tree, while folders inherit); the folder's own are then ignored.",
    }),
  },
  relations: {
    // cascade: a folder's subtree goes with it; templates inside protect it from being deleted
    parent: fk('forms/folder', { onDelete: 'cascade', tree: true, description: 'Parent folder; null for a top-level folder.' }),
    admins: m2m('user', {
      writeName: 'admin_ids',
      description: 'Users who administer the folder and its templates.',
    }),
    team_members: m2m('user', {
      writeName: 'team_member_ids',
      description: 'Users who may use the templates of a protected folder.',
    }),
  },
  access: {
    inherit: { parent: 'parent', when: 'inherit_permissions' },
    view: {
      any: [
        { field: 'visibility', in: ['public'] },
        { userAmong: 'admins' },
        { userIs: 'created_by' },
        { all: [{ field: 'visibility', in: ['protected'] }, { userAmong: 'team_members' }] },
      ],
    },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const template = defineResource({
  module: 'forms',
  name: 'template',
  title: 'Form template (Formularvorlage)',
  titleDe: 'Formularvorlage',
  description:
    'The design of a form: its mode, settings, sections and questions. Visible to who sees its folder; outside public folders ' +
    "changed only by the folder's admins and creator and the template's creator, who are its admins.",
  fields: {
    title: titleField('Name of the template.'),
    description: descriptionField('Introduction shown above the form (markdown).'),
    mode: field.enum({
      values: ['form', 'test', 'quiz', 'checklist', 'vote'],
      default: 'form',
      description: 'form: plain form; test: one scored attempt; quiz: unlimited attempts with feedback; checklist: compliance check; vote: poll.',
    }),
    public_form: field.boolean({ default: false, description: 'Whether the form can be filled in through a shared public link.' }),
    allow_anonymous: field.boolean({ default: false, description: 'Whether the form may be submitted without a user.' }),
    allow_multiple_submissions: field.boolean({ default: false, description: 'Whether one user may submit the form more than once.' }),
    pass_threshold: field.integer({ minimum: 0, maximum: 100, description: 'Percent of points needed to pass a test or quiz.' }),
    time_limit: field.integer({ minimum: 1, maximum: 1440, description: 'Time limit of a test or quiz, in minutes.' }),
    archived: archivedField('Archived templates keep their filled-in forms but accept no new ones.'),
  },
  relations: {
    // protect: the folder's templates (and their filled-in forms) would be lost
    folder: fk('forms/folder', { required: true, onDelete: 'protect', description: 'Folder the template is filed in; it decides permissions.' }),
    labels: m2m('process/label', {
      writeName: 'label_ids',
      description: 'Shared labels of the template.',
    }),
  },
  access: {
    view: { via: 'folder', action: 'view' },
    change: { any: [{ via: 'folder', rule: { field: 'visibility', in: ['public'] } }, { via: 'folder', action: 'change' }, { userIs: 'created_by' }] },
  },
});

export const section = defineResource({
  module: 'forms',
  name: 'section',
  title: 'Form section',
  description: 'A titled group of questions within a template; seen and changed by who may see and change the template.',
  fields: {
    title: titleField('Heading of the section.'),
    description: descriptionField('Text shown below the heading (markdown).'),
    order: positionField('Position of the section within its template, ascending.'),
  },
  relations: {
    template: fk('forms/template', { required: true, onDelete: 'cascade', description: 'Template the section belongs to.' }),
  },
  access: { view: { via: 'template', action: 'view' }, change: { via: 'template', action: 'change' } },
});

export const question = defineResource({
  module: 'forms',
  name: 'question',
  title: 'Form question',
  description: 'A question of a template, optionally placed in one of its sections; seen and changed by who may see and change the template.',
  fields: {
    text: field.text({ required: true, search: true, description: 'The question as shown to the person filling in the form (markdown).' }),
    help_text: field.text({ allowBlank: true, search: true, description: 'Hint shown below the question.' }),
    type: field.enum({
      // only kinds the form's answers hook knows (KINDS below)
      values: ['text', 'number', 'choice', 'date'] satisfies Question['kind'][],
      default: 'text',
      description: 'Kind of answer: text, number, choice (from the question\'s choices) or date.',
    }),
    multiple: field.boolean({ default: false, description: 'For choice questions: whether several choices may be picked.' }),
    required: field.boolean({ default: false, description: 'Whether the question must be answered before submitting.' }),
    admin_only: field.boolean({
      default: false,
      description:
        "Whether only the template's admins (the folder's admins and creator, the template's creator) see the question and may set or change its answer; " +
        'others are not asked for it even when it is required. Answers given are served with the form.',
    }),
    order: positionField('Position of the question within its template or section, ascending.'),
    points: field.integer({ minimum: 0, description: 'Points a correct answer earns in a test or quiz.' }),
  },
  relations: {
    template: fk('forms/template', { required: true, onDelete: 'cascade', description: 'Template the question belongs to.' }),
    // set null: removing a section keeps its questions in the template
    section: fk('forms/section', { onDelete: 'set null', description: 'Section the question is shown in (a section of the same template); null for none.' }),
  },
  access: {
    view: {
      all: [
        { via: 'template', action: 'view' },
        { any: [{ field: 'admin_only', in: [false] }, { via: 'template', rule: { any: [{ userIs: 'created_by' }, { via: 'folder', action: 'change' }] } }] },
      ],
    },
    change: { via: 'template', action: 'change' },
  },
});

export const choice = defineResource({
  module: 'forms',
  name: 'choice',
  title: 'Answer choice',
  description: 'One option of a choice question; seen and changed by who may see and change the question.',
  fields: {
    label: field.string({ maxLength: 255, required: true, filter: true, search: true, description: 'Text shown for the option.' }),
    value: field.string({ maxLength: 255, required: true, description: 'Value stored in the answers when the option is picked.' }),
    order: positionField('Position of the option within its question, ascending.'),
    is_correct: field.boolean({ default: false, description: 'Whether the option is a correct answer (tests and quizzes).' }),
  },
  relations: {
    question: fk('forms/question', { required: true, onDelete: 'cascade', description: 'Question the option belongs to.' }),
  },
  access: { view: { via: 'question', action: 'view' }, change: { via: 'question', action: 'change' } },
});

/** Answers keyed by question id; a choice question answers with a choice id, or a list of them when `multiple`. */
const ANSWERS_SCHEMA = {
  type: 'object',
  description: 'Answers keyed by question id (as a string).',
  propertyNames: { pattern: '^[1-9][0-9]*$' },
  additionalProperties: {
    anyOf: [
      { type: 'string', maxLength: 100000 },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: { anyOf: [{ type: 'string', maxLength: 10000 }, { type: 'number' }] } },
    ],
  },
};

interface Question {
  id: number;
  kind: 'text' | 'number' | 'date' | 'choice';
  required: boolean;
  multiple: boolean;
  /** Whether the writer sees it (an `admin_only` question may be hidden from them). */
  visible: boolean;
  choices: Set<unknown>;
}

const KINDS: Record<Question['kind'], { fits(value: unknown, q: Question): boolean; expected(q: Question): string }> = {
  text: { fits: (v) => typeof v === 'string', expected: () => 'a string' },
  number: { fits: (v) => typeof v === 'number', expected: () => 'a number' },
  date: { fits: (v) => typeof v === 'string' && isCalendarDate(v), expected: () => 'a date in the format YYYY-MM-DD' },
  choice: {
    fits: (v, q) => (q.multiple ? Array.isArray(v) && v.every((id) => q.choices.has(id)) : q.choices.has(v)),
    expected: (q) => (q.multiple ? 'a list of ids of its choices' : 'the id of one of its choices'),
  },
};

const unanswered = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A draft is saved as it stands; submitting needs every required answer. */
const DRAFTS = ['draft'];

/** The template's questions by id (as answer keys are), each with the ids of its choices. */
async function questionsOf(read: RecordReader, templateId: unknown): Promise<Map<string, Question>> {
  const found = await read.find('forms/question', { template: templateId });
  const questions = new Map(
    found.map(({ record: r, visible }) => [
      String(r.id),
      { id: r.id as number, kind: r.type as Question['kind'], required: r.required === true, multiple: r.multiple === true, visible, choices: new Set<unknown>() },
    ]),
  );
  if (found.length) for (const { record: c } of await read.find('forms/choice', { question: found.map((f) => f.record.id) })) questions.get(String(c.question))!.choices.add(c.id);
  return questions;
}

/**
 * A form's answers against its template's questions, when it is created or its answers, template
 * or state change: every key is a question of the template, every value fits its question's kind,
 * and outside drafts every required question is answered. Questions the writer cannot see are not
 * asked of them: their answers stay as they were, and they are not required.
 */
async function checkAnswers(ctx: HookContext<'answers' | 'template' | 'state'>): Promise<void> {
  if (ctx.operation === 'delete' || (ctx.before && !ctx.sets('answers') && !ctx.sets('template') && !ctx.sets('state'))) return;
  const template = ctx.value('template');
  if (template == null || ctx.errors.has('answers') || ctx.errors.has('template_id')) return;
  const answers = (ctx.value('answers') ?? {}) as Record<string, unknown>;
  const before = (ctx.before?.answers ?? {}) as Record<string, unknown>;
  const questions = await questionsOf(ctx.read, template);
  for (const [key, value] of Object.entries(answers)) {
    const q = questions.get(key);
    if (!q || (!q.visible && !same(value, before[key]))) ctx.errors.add('answers', `Question ${key} does not belong to template ${String(template)}.`);
    else if (!unanswered(value) && !KINDS[q.kind].fits(value, q)) ctx.errors.add('answers', `Answer to question ${key} must be ${KINDS[q.kind].expected(q)}.`);
  }
  if (DRAFTS.includes(ctx.value('state') as string)) return;
  for (const q of questions.values()) if (q.required && q.visible && unanswered(answers[String(q.id)])) ctx.errors.add('answers', `Question ${q.id} must be answered.`);
}

export const form = defineResource({
  module: 'forms',
  name: 'form',
  trash: true,
  title: 'Filled-in form (Formular)',
  titleDe: 'Formular',
  description: 'A form filled in from a template: its answers and where it stands. Visible to who sees the template.',
  fields: {
    answers: field.json({ schema: ANSWERS_SCHEMA, default: {}, description: "Answers keyed by ids of the template's questions: a string, a number, a date `YYYY-MM-DD`, or the id of one of the question's choices (a list of ids when the question allows several). Required questions must be answered unless the form is a draft." }),
    progress: field.integer({ minimum: 0, maximum: 100, default: 0, description: 'Percent of the required questions answered.' }),
    state: field.state({
      values: ['draft', 'submitted', 'needs_revision', 'completed'],
      default: 'draft',
      initial: ['draft', 'submitted'],
      transitions: {
        draft: ['submitted'],
        submitted: ['completed', 'needs_revision'],
        needs_revision: ['submitted'],
      },
      description: 'draft → submitted → completed; a submitted form may be sent back (needs_revision) and resubmitted. completed is final.',
    }),
  },
  relations: {
    // protect: deleting a template must not silently discard submissions
    template: fk('forms/template', { required: true, onDelete: 'protect', description: 'Template the form was filled in from.' }),
    user: fk('user', { onDelete: 'set null', description: 'User who filled in the form; null when anonymous.' }),
  },
  hooks: { validate: checkAnswers },
  // demo and example forms have no answers
  exampleStates: { state: DRAFTS },
  access: { view: { via: 'template', action: 'view' } },
});

export default [folder, template, section, question, choice, form];

/** Demo data (`manage seed --demo`): a safety checklist and a short quiz. */
export const demo = [
  demoRows(folder, [{ title: 'Arbeitssicherheit', visibility: 'public', admins: ['daniel.huber'] }, { title: 'Schulungen', visibility: 'protected', admins: ['claudia.brunner'] }]),
  demoRows(template, [
    { title: 'Sicherheitsrundgang Produktion', folder: 'Arbeitssicherheit', mode: 'checklist', allow_multiple_submissions: true, labels: ['Kernprozess'] },
    { title: 'Quiz Qualitätspolitik', folder: 'Schulungen', mode: 'quiz', pass_threshold: 2 },
  ]),
  demoRows(section, [{ title: 'Halle Nord', template: 'Sicherheitsrundgang Produktion', order: 1 }]),
  demoRows(question, [
    { key: 'notausgang', text: 'Sind alle Notausgänge frei?', type: 'choice', required: true, template: 'Sicherheitsrundgang Produktion', section: 'Halle Nord', order: 1 },
    { key: 'bemerkungen', text: 'Bemerkungen', type: 'text', template: 'Sicherheitsrundgang Produktion', section: 'Halle Nord', order: 2 },
    { key: 'kundenzufriedenheit', text: 'Wer ist für die Kundenzufriedenheit verantwortlich?', type: 'choice', template: 'Quiz Qualitätspolitik', points: 2, order: 1 },
  ]),
  demoRows(choice, [
    { key: 'notausgang-ja', label: 'Ja', value: 'ja', question: 'notausgang', order: 1 },
    { key: 'notausgang-nein', label: 'Nein', value: 'nein', question: 'notausgang', order: 2 },
    { key: 'kunde-alle', label: 'Alle Mitarbeitenden', value: 'alle', question: 'kundenzufriedenheit', is_correct: true, order: 1 },
    { key: 'kunde-verkauf', label: 'Nur der Verkauf', value: 'verkauf', question: 'kundenzufriedenheit', order: 2 },
  ]),
  demoRows(form, [
    { key: 'rundgang-reto', template: 'Sicherheitsrundgang Produktion', user: 'reto.gerber' },
    { key: 'quiz-eva', template: 'Quiz Qualitätspolitik', user: 'eva.schneider' },
  ]),
];
