/** Issue module (spec 2.2–2.4, 3, 4.3): trackers, their categories, and issues. */
import { archivedField, defineResource, descriptionField, field, fk, m2m, titleField } from '../engine/declare/index.js';

export const tracker = defineResource({
  module: 'issue',
  name: 'tracker',
  table: 'issue_tracker',
  title: 'Tracker (Meldekreis)',
  description: 'A channel that collects issues of one kind, with its own admins, teams and visibility.',
  permission: { app: 'issues', model: 'tracker' },
  fields: {
    title: field.string({ maxLength: 255, required: true, search: true, lookups: ['icontains', 'exact', 'in'], description: 'Name of the tracker.' }),
    description: descriptionField('What the tracker collects (markdown).'),
    state: field.state({
      values: ['draft', 'approved', 'archived'],
      default: 'draft',
      initial: ['draft', 'approved'],
      transitions: { draft: ['approved', 'archived'], approved: ['archived'], archived: ['approved'] },
      description: 'Lifecycle: draft, approved (in use) or archived.',
    }),
    visibility: field.enum({
      values: ['normal', 'protected', 'confidential'],
      default: 'normal',
      description: 'normal: every user with the view permission; protected: admins and team members; confidential: admins only.',
    }),
    public_form: field.boolean({ default: false, description: 'Whether the public reporting form is switched on.' }),
  },
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the tracker.' }),
    teams: m2m('customgroup', { writeName: 'team_ids', targetColumn: 'group_id', description: 'Groups whose members see a protected tracker.' }),
  },
  access: {
    view: {
      any: [
        { field: 'visibility', in: ['normal'] },
        { userAmong: 'admins' },
        { all: [{ field: 'visibility', in: ['protected'] }, { groupAmong: 'teams' }] },
      ],
    },
    change: { userAmong: 'admins' },
  },
});

export const category = defineResource({
  module: 'issue',
  name: 'category',
  table: 'issue_category',
  title: 'Category (Kategorie)',
  description: 'A label grouping issues inside one tracker; `Scope:Value` titles are scoped labels.',
  permission: { app: 'issues', model: 'issuecategory' },
  fields: {
    title: titleField('Label text; `Scope:Value` for a scoped label.'),
    color: field.color({ description: 'UI colour class: a base name, optionally one space and a modifier (`blue lighten-2`).' }),
  },
  relations: {
    tracker: fk('issue/tracker', { required: true, onDelete: 'cascade', description: 'Tracker the category belongs to.' }),
  },
  access: { view: { via: 'tracker', action: 'view' }, change: { via: 'tracker', action: 'change' } },
});

export const issue = defineResource({
  module: 'issue',
  name: 'issue',
  table: 'issue_issue',
  seed: { option: 'issues', default: 100 },
  title: 'Issue (Meldung)',
  description: 'A reported issue moving through its workflow from new to resolved or rejected.',
  permission: { app: 'issues', model: 'issue' },
  listColumns: ['id', 'title', 'state', 'tracker', 'assigned_user', 'deadline'],
  attachments: true,
  fields: {
    title: field.string({ maxLength: 255, required: true, search: true, description: 'Short summary of the issue.' }),
    description: descriptionField('Full description (markdown).'),
    state: field.state({
      values: ['new', 'pending', 'accepted', 'active', 'effectiveness_check', 'resolved', 'rejected'],
      default: 'new',
      initial: ['new'],
      transitions: {
        new: ['pending', 'rejected'],
        pending: ['accepted', 'rejected'],
        accepted: ['active', 'rejected'],
        active: ['effectiveness_check', 'rejected'],
        effectiveness_check: ['resolved', 'rejected'],
      },
      description: 'Workflow state; changed by PATCH, one step at a time; resolved and rejected are final.',
    }),
    deadline: field.date({ lookups: ['gte', 'lte', 'range', 'isnull'], description: 'Date by which the issue should be dealt with.' }),
    archived: archivedField('Archived issues are kept but hidden from daily work.'),
    classification: field.enum({
      values: ['official', 'confidential', 'secret'],
      description: "Derived from the tracker's visibility: normal → official, protected → confidential, confidential → secret.",
      derived: { via: 'tracker', field: 'visibility', map: { normal: 'official', protected: 'confidential', confidential: 'secret' } },
    }),
  },
  relations: {
    tracker: fk('issue/tracker', { required: true, onDelete: 'protect', description: 'Tracker the issue is reported in.' }),
    assigned_user: fk('user', { onDelete: 'set null', description: 'User responsible for the issue.' }),
    categories: m2m('issue/category', {
      writeName: 'category_ids',
      sameParent: { local: 'tracker', remote: 'tracker' },
      description: "Categories of the issue; each must belong to the issue's tracker.",
    }),
    contributors: m2m('user', { writeName: 'contributor_ids', description: 'Users contributing to the issue.' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes the issue concerns.' }),
  },
  access: {
    view: { any: [{ via: 'tracker', action: 'view' }, { userIs: 'created_by' }, { userIs: 'assigned_user' }, { userAmong: 'contributors' }] },
  },
});

export default [tracker, category, issue];
