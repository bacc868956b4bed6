/** Projects module: projects with their phases, milestones and tasks (time-budget lines). */
import { defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, trafficLightField } from '../engine/declare/index.js';

const RATING_DESCRIPTION = 'Traffic-light rating: green (on track), orange (at risk) or red (off track).';

export const moduleLabel = defineModule({ name: 'projects', label: 'Projects', labelDe: 'Projekte' });

export const project = defineResource({
  module: 'projects',
  name: 'project',
  trash: true,
  title: 'Project (Projekt)',
  titleDe: 'Projekt',
  description:
    'A project from planning through approval to its end, organised as a tree of sub-projects. ' +
    'Changing or deleting it needs being its lead, one of its admins or its creator.',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Free project number (no automatic numbering).' }),
    title: titleField('Name of the project.'),
    description: descriptionField('Goal and scope of the project (markdown).'),
    state: field.state({
      values: ['planned', 'verification', 'approved', 'active', 'finished', 'postponed', 'cancelled'],
      default: 'planned',
      initial: ['planned'],
      transitions: {
        planned: ['verification', 'postponed', 'cancelled'],
        verification: ['approved', 'planned', 'postponed', 'cancelled'],
        approved: ['active', 'planned', 'postponed', 'cancelled'],
        active: ['finished', 'postponed', 'cancelled'],
        postponed: ['planned', 'active', 'cancelled'],
        finished: ['active'],
        cancelled: ['planned'],
      },
      description: 'Lifecycle: planned, verification (under review), approved, active, finished, postponed, cancelled; no step may be skipped.',
    }),
    classification: field.enum({
      values: ['normal', 'confidential'],
      default: 'normal',
      description:
        'normal: every user with the view permission; confidential: only its lead, its admins, its team members and its creator see it and its phases, milestones and tasks.',
    }),
    rating: trafficLightField(RATING_DESCRIPTION),
    start: field.date({ description: 'Planned start date.' }),
    end: field.date({ description: 'Planned end date; not before the start.' }),
    deadline: field.date({ description: 'Date by which the project must be done.' }),
    investment_value: field.decimal({ digits: 14, decimals: 2, minimum: 0, description: 'Investment value in CHF.' }),
    personnel_effort: field.decimal({ digits: 10, decimals: 2, minimum: 0, description: 'Personnel effort in person-days.' }),
  },
  relations: {
    // set null: deleting a parent keeps its sub-projects and clears their parent
    parent: fk('projects/project', { onDelete: 'set null', tree: true, description: 'Parent project; null for a top-level project.' }),
    lead: fk('organisation/mitarbeitende', { onDelete: 'set null', description: 'Employee who leads the project (Federführung).' }),
    lead_orgunit: fk('organisation/orgunit', { onDelete: 'set null', description: 'Organisational unit in charge of the project.' }),
    orgunits: m2m('organisation/orgunit', { writeName: 'orgunit_ids', description: 'Organisational units involved in the project.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the project.' }),
    team_members: m2m('organisation/mitarbeitende', { writeName: 'team_member_ids', targetColumn: 'employee_id', description: 'Employees on the project team.' }),
  },
  access: {
    view: {
      any: [
        { field: 'classification', in: ['normal'] },
        { userAmong: 'admins' },
        { userIs: 'created_by' },
        { via: 'lead', rule: { userIs: 'user' } },
        { among: 'team_members', rule: { userIs: 'user' } },
      ],
    },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }, { via: 'lead', rule: { userIs: 'user' } }] },
  },
  rules: [{ kind: 'order', earlier: 'start', later: 'end' }],
});

export const phase = defineResource({
  module: 'projects',
  name: 'phase',
  title: 'Phase (Projektphase)',
  titleDe: 'Projektphase',
  description: 'A period of a project, shown as a bar in the Gantt chart; visible to who sees the project.',
  fields: {
    title: titleField('Name of the phase.'),
    description: descriptionField('What happens in the phase (markdown).'),
    notes: field.text({ allowBlank: true, description: 'Internal notes on the phase (markdown).' }),
    start: field.date({ required: true, description: 'First day of the phase.' }),
    end: field.date({ required: true, description: 'Last day of the phase; not before the start.' }),
  },
  relations: {
    // cascade: phases are parts of their project
    project: fk('projects/project', { required: true, onDelete: 'cascade', description: 'Project the phase belongs to.' }),
  },
  access: { view: { via: 'project', action: 'view' } },
  ordering: ['start'],
  rules: [{ kind: 'order', earlier: 'start', later: 'end' }],
});

export const milestone = defineResource({
  module: 'projects',
  name: 'milestone',
  title: 'Milestone (Meilenstein)',
  titleDe: 'Meilenstein',
  description: 'A point in time of a project that marks an important result; visible to who sees the project.',
  fields: {
    title: titleField('Name of the milestone.'),
    description: descriptionField('What the milestone stands for (markdown).'),
    date: field.date({ required: true, description: 'Date of the milestone.' }),
    reached: field.boolean({ default: false, description: 'Whether the milestone has been reached (mark it rather than delete it).' }),
    rating: trafficLightField(RATING_DESCRIPTION),
  },
  relations: {
    // cascade: milestones are parts of their project
    project: fk('projects/project', { required: true, onDelete: 'cascade', description: 'Project the milestone belongs to.' }),
  },
  access: { view: { via: 'project', action: 'view' } },
  ordering: ['date'],
});

export const task = defineResource({
  module: 'projects',
  name: 'task',
  title: 'Task (Kostenstelle)',
  titleDe: 'Kostenstelle',
  description: 'A work package of a project with its own time budget; time is booked against tasks. Visible as `visible_to_all` says.',
  fields: {
    title: titleField('Name of the task.'),
    description: descriptionField('What the task covers (markdown).'),
    state: field.state({
      values: ['draft', 'active', 'accounted', 'closed'],
      default: 'draft',
      initial: ['draft', 'active'],
      transitions: {
        draft: ['active', 'closed'],
        active: ['accounted', 'closed'],
        accounted: ['active', 'closed'],
        closed: ['active'],
      },
      description: 'Lifecycle: draft, active (time can be booked), accounted (abgerechnet) or closed.',
    }),
    priority: field.enum({ values: ['low', 'normal', 'high', 'urgent'], default: 'normal', description: 'Priority of the task.' }),
    due_date: field.date({ description: 'Date by which the task should be done.' }),
    estimated_hours: field.decimal({ digits: 10, decimals: 2, minimum: 0, description: 'Estimated (budgeted) hours.' }),
    hourly_rate: field.decimal({ digits: 14, decimals: 2, minimum: 0, description: 'Hourly rate in CHF.' }),
    billable: field.boolean({ default: false, description: 'Whether hours booked on the task are billed to the customer.' }),
    visible_to_all: field.boolean({
      default: true,
      description:
        'Whether every user who sees the project sees and can book the task; otherwise only who may change the project (its lead, admins and creator) and the assignee.',
    }),
  },
  relations: {
    // cascade: tasks are parts of their project
    project: fk('projects/project', { required: true, onDelete: 'cascade', description: 'Project the task belongs to.' }),
    phase: fk('projects/phase', { onDelete: 'set null', description: 'Phase of the same project the task falls in.' }),
    milestone: fk('projects/milestone', { onDelete: 'set null', description: 'Milestone of the same project the task leads to.' }),
    assignee: fk('organisation/mitarbeitende', { onDelete: 'set null', description: 'Employee responsible for the task.' }),
  },
  access: {
    view: {
      all: [
        { via: 'project', action: 'view' },
        { any: [{ field: 'visible_to_all', in: [true] }, { via: 'project', action: 'change' }, { via: 'assignee', rule: { userIs: 'user' } }] },
      ],
    },
  },
});

export default [project, phase, milestone, task];

/** Demo data (`manage seed --demo`): two projects with phases, milestones and tasks. */
export const demo = [
  demoRows(project, [
    { number: 'PRJ-2026-01', title: 'Einführung ISO 9001:2015', state: 'active', rating: 'green', lead: 'anna.keller', lead_orgunit: 'Qualität', start: '2026-01-12', end: '2026-10-30', admins: ['anna.keller'], team_members: ['eva.schneider', 'beat.meier'], personnel_effort: '420.0' },
    { number: 'PRJ-2026-02', title: 'Neue 5-Achs-Fräse', state: 'approved', rating: 'orange', lead: 'daniel.huber', lead_orgunit: 'Produktion', start: '2026-04-01', end: '2026-09-30', investment_value: '480000.00', team_members: ['reto.gerber', 'sandra.frei'] },
    { number: 'PRJ-2025-07', title: 'Umzug Lager', state: 'finished', rating: 'green', lead: 'daniel.huber', start: '2025-06-01', end: '2025-08-31' },
  ]),
  demoRows(phase, [
    { title: 'Analyse', project: 'Einführung ISO 9001:2015', start: '2026-01-12', end: '2026-03-31' },
    { title: 'Umsetzung', project: 'Einführung ISO 9001:2015', start: '2026-04-01', end: '2026-08-31' },
    { title: 'Zertifizierung', project: 'Einführung ISO 9001:2015', start: '2026-09-01', end: '2026-10-30' },
  ]),
  demoRows(milestone, [
    { title: 'Prozesslandkarte freigegeben', project: 'Einführung ISO 9001:2015', date: '2026-03-31', reached: true, rating: 'green' },
    { title: 'Zertifizierungsaudit', project: 'Einführung ISO 9001:2015', date: '2026-10-20' },
    { title: 'Maschine abgenommen', project: 'Neue 5-Achs-Fräse', date: '2026-09-15', rating: 'orange' },
  ]),
  demoRows(task, [
    { title: 'Prozesse aufnehmen', project: 'Einführung ISO 9001:2015', phase: 'Analyse', state: 'closed', priority: 'high', assignee: 'anna.keller', estimated_hours: '40.0' },
    { title: 'Dokumentenlenkung einrichten', project: 'Einführung ISO 9001:2015', phase: 'Umsetzung', state: 'active', priority: 'normal', assignee: 'eva.schneider', due_date: '2026-05-29' },
    { title: 'Offerten einholen', project: 'Neue 5-Achs-Fräse', state: 'active', priority: 'urgent', assignee: 'daniel.huber', due_date: '2026-04-17' },
    { title: 'Fundament planen', project: 'Neue 5-Achs-Fräse', state: 'draft', priority: 'low', assignee: 'reto.gerber' },
  ]),
];
