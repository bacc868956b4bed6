/** Process module (Prozesse): documented processes and their building blocks. */
import { archivedField, catalogueFields, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'process', label: 'Processes', labelDe: 'Prozesse' });

export const periodizitaet = defineResource({
  module: 'process',
  name: 'periodizitaet',
  title: 'Periodicity (Periodizität)',
  titleDe: 'Periodizität',
  description: 'A recurrence interval (monthly, quarterly, yearly, on demand, …) shared by processes, steps and KPIs.',
  fields: {
    title: titleField('Name of the periodicity, e.g. `quarterly`.'),
    description: descriptionField('Explanation of the periodicity (markdown).'),
    interval_months: field.integer({
      minimum: 1,
      maximum: 120,
      description: 'Months between two occurrences (1 = monthly, 12 = yearly); null means on demand.',
    }),
  },
});

export const label = defineResource({
  module: 'process',
  name: 'label',
  title: 'Label',
  description: 'A shared label used by processes, process steps and form templates; `Scope:Value` titles are scoped labels.',
  fields: {
    title: titleField('Label text; `Scope:Value` for a scoped label.'),
    description: descriptionField('What the label means (markdown).'),
    color: field.color({ description: 'UI colour class: a base name, optionally one space and a modifier (`blue lighten-2`).' }),
  },
});

export const hilfsmittelart = defineResource({
  module: 'process',
  name: 'hilfsmittelart',
  title: 'Tool type (Hilfsmittelart)',
  titleDe: 'Hilfsmittelart',
  description: 'A kind of tool or aid, e.g. software, machine, template.',
  fields: catalogueFields({
    title: 'Name of the tool type.',
    description: 'What belongs to this type (markdown).',
    archived: 'Archived types are kept but no longer offered for new tools.',
  }),
});

export const hilfsmittel = defineResource({
  module: 'process',
  name: 'hilfsmittel',
  title: 'Tool (Hilfsmittel)',
  titleDe: 'Hilfsmittel',
  description: 'A tool or aid (software, machine, form, …) used in processes and process steps.',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Inventory or reference number of the tool.' }),
    title: titleField('Name of the tool.'),
    description: descriptionField('What the tool is and how it is used (markdown).'),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Where the tool is kept or installed.' }),
    url: field.url({ maxLength: 500, description: 'Link to the tool or its documentation.' }),
  },
  relations: {
    type: fk('process/hilfsmittelart', { onDelete: 'set null', description: 'Kind of tool (Hilfsmittelart).' }),
    responsible_users: m2m('user', { writeName: 'responsible_user_ids', description: 'Users responsible for the tool.' }),
  },
});

export const process = defineResource({
  module: 'process',
  name: 'process',
  trash: true,
  title: 'Process (Prozess)',
  titleDe: 'Prozess',
  description: 'A documented business process, organised as a tree.',
  attachments: true,
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Process number, e.g. `2.1`.' }),
    title: titleField('Name of the process.'),
    description: descriptionField('What the process achieves (markdown).'),
    state: field.state({
      values: ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived'],
      default: 'draft',
      initial: ['draft'],
      transitions: {
        draft: ['review'],
        review: ['reviewed', 'draft'],
        reviewed: ['approved', 'draft'],
        approved: ['expired', 'archived', 'draft'],
        expired: ['approved', 'archived', 'draft'],
        archived: ['draft'],
      },
      description: 'Approval workflow: draft, review, reviewed, approved, expired, archived.',
    }),
    valid_from: field.date({ description: 'First day the process applies.' }),
    valid_to: field.date({ description: 'Last day the process applies.' }),
    archived: archivedField('Archived processes are kept but hidden from daily work.'),
  },
  relations: {
    parent: fk('process/process', { onDelete: 'cascade', tree: true, description: 'Parent process; deleting a process deletes its sub-processes.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User who owns the process.' }),
    deputy_owner: fk('user', { onDelete: 'set null', description: 'User who stands in for the owner.' }),
    periodicity: fk('process/periodizitaet', { onDelete: 'set null', description: 'How often the process is reviewed (Periodizität).' }),
    labels: m2m('process/label', { writeName: 'label_ids', description: 'Shared labels of the process.' }),
    tools: m2m('process/hilfsmittel', { writeName: 'tool_ids', description: 'Tools (Hilfsmittel) used in the process.' }),
  },
  rules: [{ kind: 'order', earlier: 'valid_from', later: 'valid_to' }],
});

export const processsteps = defineResource({
  module: 'process',
  name: 'processsteps',
  title: 'Process step (Prozessschritt)',
  titleDe: 'Prozessschritt',
  description: 'One step of a process, in the order given by `order`.',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Step number, e.g. `2.1.3`.' }),
    title: titleField('Name of the step.'),
    text: field.text({ allowBlank: true, search: true, description: 'What is done in the step (markdown).' }),
    result: field.text({ allowBlank: true, search: true, description: 'What the step produces (markdown).' }),
    order: positionField('Position of the step within its process, ascending.'),
    bpmn_element_id: field.string({ maxLength: 255, allowBlank: true, description: 'Id of the matching element in the process BPMN diagram.' }),
  },
  relations: {
    process: fk('process/process', { required: true, onDelete: 'cascade', description: 'Process the step is part of; deleting the process deletes its steps.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion) responsible for the step (R in RACI).' }),
    responsible_user: fk('user', { onDelete: 'set null', assignee: true, description: 'User responsible for carrying out the step.' }),
    periodicity: fk('process/periodizitaet', { onDelete: 'set null', description: 'How often the step is carried out (Periodizität).' }),
    tools: m2m('process/hilfsmittel', { writeName: 'tool_ids', sourceColumn: 'processstep_id', description: 'Tools (Hilfsmittel) used in the step.' }),
    labels: m2m('process/label', { writeName: 'label_ids', sourceColumn: 'processstep_id', description: 'Shared labels of the step.' }),
  },
});

export default [periodizitaet, label, hilfsmittelart, hilfsmittel, process, processsteps];

/** Demo data (`manage seed --demo`): the company's process map. */
export const demo = [
  demoRows(periodizitaet, [
    { title: 'Monatlich', interval_months: 1 },
    { title: 'Quartalsweise', interval_months: 3 },
    { title: 'Jährlich', interval_months: 12 },
  ]),
  demoRows(label, [
    { title: 'Kernprozess', color: 'blue' },
    { title: 'Führungsprozess', color: 'deep-purple' },
    { title: 'Unterstützungsprozess', color: 'grey' },
  ]),
  demoRows(hilfsmittelart, [{ title: 'Checkliste' }, { title: 'Vorlage' }, { title: 'Software' }]),
  demoRows(hilfsmittel, [
    { number: 'HM-01', title: 'Checkliste Wareneingang', type: 'Checkliste', location: 'Wareneingang', responsible_users: ['eva.schneider'] },
    { number: 'HM-02', title: 'ERP Abacus', type: 'Software', url: 'https://www.abacus.ch', responsible_users: ['beat.meier'] },
  ]),
  demoRows(process, [
    { number: 'P1', title: 'Unternehmen führen', state: 'approved', owner: 'beat.meier', labels: ['Führungsprozess'], periodicity: 'Jährlich', valid_from: '2026-01-01' },
    { number: 'P2', title: 'Aufträge abwickeln', state: 'approved', owner: 'daniel.huber', deputy_owner: 'reto.gerber', labels: ['Kernprozess'], tools: ['ERP Abacus'] },
    { number: 'P2.1', title: 'Wareneingang prüfen', parent: 'Aufträge abwickeln', state: 'review', owner: 'eva.schneider', labels: ['Kernprozess'], tools: ['Checkliste Wareneingang'] },
    { number: 'P3', title: 'Personal gewinnen und entwickeln', state: 'draft', owner: 'claudia.brunner', labels: ['Unterstützungsprozess'] },
  ]),
  demoRows(processsteps, [
    { number: '1', title: 'Lieferschein mit Bestellung abgleichen', process: 'Wareneingang prüfen', order: 1, responsible_user: 'eva.schneider' },
    { number: '2', title: 'Stichprobe messen', process: 'Wareneingang prüfen', order: 2, tools: ['Checkliste Wareneingang'] },
    { number: '1', title: 'Auftrag im ERP erfassen', process: 'Aufträge abwickeln', order: 1, tools: ['ERP Abacus'] },
  ]),
];
