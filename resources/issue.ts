/** Issue module (spec 2.2–2.4, 3, 4.3): trackers, their categories, and issues. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'issue', label: 'Issues', labelDe: 'Meldungen' });

export const tracker = defineResource({
  module: 'issue',
  name: 'tracker',
  title: 'Tracker (Meldekreis)',
  titleDe: 'Meldekreis',
  description: 'A channel that collects issues of one kind, with its own admins, teams and visibility.',
  permission: { app: 'issues', model: 'tracker' },
  fields: {
    title: field.string({ maxLength: 255, required: true, search: true, lookups: ['icontains', 'exact', 'in'], labelDe: 'Titel', description: 'Name of the tracker.' }),
    description: descriptionField('What the tracker collects (markdown).'),
    state: field.state({
      values: ['draft', 'approved', 'archived'],
      default: 'draft',
      initial: ['draft', 'approved'],
      transitions: { draft: ['approved', 'archived'], approved: ['archived'], archived: ['approved'] },
      labelDe: 'Status',
      valueLabels: { draft: { de: 'Entwurf' }, approved: { de: 'Freigegeben' }, archived: { de: 'Archiviert' } },
      description: 'Lifecycle: draft, approved (in use) or archived.',
    }),
    visibility: field.enum({
      values: ['normal', 'protected', 'confidential'],
      default: 'normal',
      labelDe: 'Sichtbarkeit',
      valueLabels: { protected: { de: 'Geschützt' }, confidential: { de: 'Vertraulich' } },
      description: 'normal: every user with the view permission; protected: admins and team members; confidential: admins only.',
    }),
    public_form: field.boolean({ default: false, labelDe: 'Öffentliches Formular', description: 'Whether the public reporting form is switched on.' }),
  },
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', labelDe: 'Administratoren', description: 'Users who administer the tracker.' }),
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
  title: 'Category (Kategorie)',
  titleDe: 'Kategorie',
  description: 'A label grouping issues inside one tracker; `Scope:Value` titles are scoped labels.',
  permission: { app: 'issues', model: 'issuecategory' },
  fields: {
    title: titleField('Label text; `Scope:Value` for a scoped label.'),
    color: field.color({ labelDe: 'Farbe', description: 'UI colour class: a base name, optionally one space and a modifier (`blue lighten-2`).' }),
  },
  relations: {
    tracker: fk('issue/tracker', { required: true, onDelete: 'cascade', labelDe: 'Meldekreis', description: 'Tracker the category belongs to.' }),
  },
  access: { view: { via: 'tracker', action: 'view' }, change: { via: 'tracker', action: 'change' } },
});

export const issue = defineResource({
  module: 'issue',
  name: 'issue',
  trash: true,
  seed: { option: 'issues', default: 100 },
  title: 'Issue (Meldung)',
  titleDe: 'Meldung',
  description: 'A reported issue moving through its workflow from new to resolved or rejected.',
  permission: { app: 'issues', model: 'issue' },
  listColumns: ['id', 'title', 'state', 'tracker', 'assigned_user', 'deadline'],
  attachments: true,
  fields: {
    title: field.string({ maxLength: 255, required: true, search: true, labelDe: 'Titel', description: 'Short summary of the issue.' }),
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
      labelDe: 'Status',
      valueLabels: {
        new: { de: 'Neu' },
        pending: { de: 'Ausstehend' },
        accepted: { de: 'Angenommen' },
        active: { de: 'In Bearbeitung' },
        effectiveness_check: { de: 'Wirksamkeitsprüfung' },
        resolved: { de: 'Erledigt' },
        rejected: { de: 'Abgelehnt' },
      },
      description: 'Workflow state; changed by PATCH, one step at a time; resolved and rejected are final.',
    }),
    deadline: field.date({ lookups: ['gte', 'lte', 'range', 'isnull'], labelDe: 'Frist', description: 'Date by which the issue should be dealt with.' }),
    archived: archivedField('Archived issues are kept but hidden from daily work.'),
    classification: field.enum({
      values: ['official', 'confidential', 'secret'],
      labelDe: 'Klassifizierung',
      valueLabels: { official: { de: 'Offiziell' }, confidential: { de: 'Vertraulich' }, secret: { de: 'Geheim' } },
      description: "Derived from the tracker's visibility: normal → official, protected → confidential, confidential → secret.",
      derived: { via: 'tracker', field: 'visibility', map: { normal: 'official', protected: 'confidential', confidential: 'secret' } },
    }),
  },
  relations: {
    tracker: fk('issue/tracker', { required: true, onDelete: 'protect', labelDe: 'Meldekreis', description: 'Tracker the issue is reported in.' }),
    assigned_user: fk('user', { onDelete: 'set null', assignee: true, labelDe: 'Zugewiesen an', description: 'User responsible for the issue.' }),
    categories: m2m('issue/category', {
      writeName: 'category_ids',
      labelDe: 'Kategorien',
      sameParent: { local: 'tracker', remote: 'tracker' },
      description: "Categories of the issue; each must belong to the issue's tracker.",
    }),
    contributors: m2m('user', { writeName: 'contributor_ids', labelDe: 'Mitwirkende', description: 'Users contributing to the issue.' }),
    processes: m2m('process/process', { writeName: 'process_ids', labelDe: 'Prozesse', description: 'Processes the issue concerns.' }),
  },
  access: {
    view: { any: [{ via: 'tracker', action: 'view' }, { userIs: 'created_by' }, { userIs: 'assigned_user' }, { userAmong: 'contributors' }] },
  },
});

export default [tracker, category, issue];

/** Demo data (`manage seed --demo`): two trackers, and issues in every state of their workflow. */
export const demo = [
  demoRows(tracker, [
    { title: 'Qualitätsmeldungen', description: 'Abweichungen an Produkten und Prozessen.', state: 'approved', visibility: 'normal', admins: ['anna.keller'], teams: ['Qualitätsmanagement'] },
    { title: 'Arbeitssicherheit', description: 'Unfälle, Beinaheunfälle und Gefährdungen.', state: 'approved', visibility: 'protected', admins: ['daniel.huber'], teams: ['Mitarbeitende'] },
    { title: 'Kundenreklamationen', state: 'draft', visibility: 'confidential', admins: ['beat.meier'] },
  ]),
  demoRows(category, [
    { title: 'Produkt:Frästeile', color: 'blue lighten-2', tracker: 'Qualitätsmeldungen' },
    { title: 'Produkt:Drehteile', color: 'green', tracker: 'Qualitätsmeldungen' },
    { title: 'Lieferant', color: 'orange', tracker: 'Qualitätsmeldungen' },
    { title: 'Beinaheunfall', color: 'red darken-1', tracker: 'Arbeitssicherheit' },
  ]),
  demoRows(issue, [
    { title: 'Masshaltigkeit Los 2417 ausserhalb Toleranz', state: 'new', tracker: 'Qualitätsmeldungen', categories: ['Produkt:Frästeile'], deadline: '2026-04-15' },
    { title: 'Lieferung Aluminiumprofile verspätet', state: 'pending', tracker: 'Qualitätsmeldungen', categories: ['Lieferant'], assigned_user: 'eva.schneider' },
    { title: 'Gratbildung an Drehteilen', state: 'accepted', tracker: 'Qualitätsmeldungen', categories: ['Produkt:Drehteile'], assigned_user: 'reto.gerber', contributors: ['eva.schneider'] },
    { title: 'Prüfplan Endkontrolle unvollständig', state: 'active', tracker: 'Qualitätsmeldungen', assigned_user: 'anna.keller', deadline: '2026-03-31' },
    { title: 'Kühlschmierstoff-Konzentration schwankt', state: 'effectiveness_check', tracker: 'Qualitätsmeldungen', assigned_user: 'daniel.huber' },
    { title: 'Falsche Etiketten auf Versandkartons', state: 'resolved', tracker: 'Qualitätsmeldungen', assigned_user: 'sandra.frei', categories: ['Lieferant'] },
    { title: 'Doppelte Meldung Messmaschine', state: 'rejected', tracker: 'Qualitätsmeldungen' },
    { title: 'Stolperfalle beim Hallentor Nord', state: 'active', tracker: 'Arbeitssicherheit', categories: ['Beinaheunfall'], assigned_user: 'daniel.huber', deadline: '2026-03-20' },
    { title: 'Schutzbrille fehlt an Schleifplatz 3', state: 'resolved', tracker: 'Arbeitssicherheit', assigned_user: 'reto.gerber' },
  ]),
];
