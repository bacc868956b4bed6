/** Businesscontext module ("Kontext", ISO 9001 §4): interested parties and the internal and external issues of the organisation. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'businesscontext', label: 'Business context', labelDe: 'Kontext' });

export const interestedparty = defineResource({
  module: 'businesscontext',
  name: 'interestedparty',
  title: 'Interested party',
  description: 'A stakeholder of the organisation; rating = interest × influence.',
  fields: {
    name: titleField('Name of the interested party.'),
    description: field.text({ required: true, search: true, description: 'Needs and expectations of the party (markdown).' }),
    interest: field.enum({
      values: ['none', 'small', 'medium', 'large'],
      default: 'none',
      description: 'Interest in the organisation: none (–), small, medium or large.',
    }),
    influence: field.enum({
      values: ['none', 'small', 'medium', 'large'],
      default: 'none',
      description: 'Influence on the organisation: none (–), small, medium or large.',
    }),
    list_order: positionField('Position in the list (ascending).'),
  },
  relations: {
    responsible_functions: m2m('organisation/funktionen', {
      writeName: 'responsible_function_ids',
      targetColumn: 'function_id',
      description: 'Functions (Funktionen, roles) responsible for the party.',
    }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes needed to meet the party’s requirements.' }),
    estimates: m2m('swot/estimate', { writeName: 'estimate_ids', description: 'SWOT estimates (risks and chances) arising from the party.' }),
  },
  ordering: ['list_order', 'name'],
});

export const issuetype = defineResource({
  module: 'businesscontext',
  name: 'issuetype',
  title: 'Issue type (theme type)',
  description: 'A type of context issue, e.g. regulatory, technological, economic, social.',
  fields: {
    name: titleField('Name of the type.'),
    description: descriptionField('What issues of this type cover (markdown).'),
    archived: archivedField('Archived types are kept but no longer offered.'),
  },
});

export const issue = defineResource({
  module: 'businesscontext',
  name: 'issue',
  title: 'Issue (context issue, Thema)',
  description: 'An internal or external issue relevant to the organisation’s purpose and strategy.',
  fields: {
    title: titleField('Short name of the issue.'),
    description: descriptionField('Description of the issue (markdown).'),
    kind: field.enum({
      values: ['internal', 'external'],
      required: true,
      description: 'Whether the issue arises inside (internal) or outside (external) the organisation.',
    }),
    list_order: positionField('Position in the list (ascending).'),
  },
  relations: {
    // protect: a type in use must not disappear from its issues.
    type: fk('businesscontext/issuetype', { required: true, onDelete: 'protect', description: 'Type of the issue.' }),
    party: fk('businesscontext/interestedparty', { onDelete: 'set null', description: 'Interested party the issue concerns.' }),
    responsible_functions: m2m('organisation/funktionen', {
      writeName: 'responsible_function_ids',
      targetColumn: 'function_id',
      description: 'Functions (Funktionen, roles) responsible for the issue.',
    }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes needed to deal with the issue.' }),
    estimates: m2m('swot/estimate', { writeName: 'estimate_ids', description: 'SWOT estimates (risks and chances) arising from the issue.' }),
  },
  ordering: ['list_order', 'title'],
});

export default [interestedparty, issuetype, issue];

/** Demo data (`manage seed --demo`): interested parties and context issues. */
export const demo = [
  demoRows(interestedparty, [
    { name: 'Kunden Medizinaltechnik', description: 'Erwarten rückverfolgbare, fehlerfreie Teile.', interest: 'large', influence: 'large', list_order: 1, processes: ['Aufträge abwickeln'] },
    { name: 'Mitarbeitende', description: 'Sichere Arbeitsplätze und faire Löhne.', interest: 'large', influence: 'medium', list_order: 2 },
    { name: 'Gemeinde Winterthur', description: 'Lärmschutz und Arbeitsplätze in der Region.', interest: 'small', influence: 'small', list_order: 3 },
  ]),
  demoRows(issuetype, [{ name: 'Markt' }, { name: 'Personal' }]),
  demoRows(issue, [
    { title: 'Fachkräftemangel Polymechanik', kind: 'external', type: 'Personal', party: 'Mitarbeitende', list_order: 1 },
    { title: 'Starker Franken', kind: 'external', type: 'Markt', party: 'Kunden Medizinaltechnik', list_order: 2 },
  ]),
];
