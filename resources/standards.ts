/** Standards module: norms (e.g. ISO 9001), their categories and their chapters with compliance ratings. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'standards', label: 'Standards', labelDe: 'Normen' });

export const category = defineResource({
  module: 'standards',
  name: 'category',
  title: 'Category (standard category)',
  description: 'A category grouping standards, e.g. quality, environment, information security.',
  fields: {
    title: titleField('Name of the category.'),
    description: descriptionField('What the category covers (markdown).'),
    order: positionField('Position among categories (ascending).'),
  },
});

export const standard = defineResource({
  module: 'standards',
  name: 'standard',
  title: 'Standard (norm)',
  description: 'A norm or regulation the organisation complies with, structured in chapters.',
  fields: {
    abbreviation: field.string({ maxLength: 50, allowBlank: true, filter: true, search: true, description: 'Short name, e.g. `ISO 9001`.' }),
    title: titleField('Full name of the standard.'),
    description: descriptionField('Scope and purpose of the standard (markdown).'),
    valid_from: field.date({ description: 'First day the standard applies.' }),
    valid_to: field.date({ description: 'Last day the standard applies.' }),
    archived: archivedField('Archived standards (e.g. superseded editions) are kept but hidden.'),
  },
  relations: {
    categories: m2m('standards/category', { writeName: 'category_ids', description: 'Categories the standard belongs to.' }),
  },
  rules: [{ kind: 'order', earlier: 'valid_from', later: 'valid_to' }],
});

export const chapter = defineResource({
  module: 'standards',
  name: 'chapter',
  title: 'Chapter (requirement)',
  description: 'A chapter or requirement of a standard, nested as a tree, with its degree of compliance.',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Chapter number, e.g. `7.1.5`.' }),
    title: titleField('Heading of the chapter.'),
    description: descriptionField('The requirement the chapter states (markdown).'),
    required_evidence: field.text({ allowBlank: true, description: 'Evidence needed to show the requirement is met.' }),
    fulfilment_required: field.boolean({ default: true, description: 'Whether the requirement applies; only these count towards overall compliance.' }),
    compliance: field.integer({ minimum: 0, maximum: 100, default: 0, description: 'Degree of compliance in percent, 0–100.' }),
    fulfilled_by: field.text({ allowBlank: true, description: 'How the organisation fulfils the requirement.' }),
    order: positionField('Position among its sibling chapters (ascending).'),
  },
  relations: {
    standard: fk('standards/standard', { required: true, onDelete: 'cascade', description: 'Standard the chapter is part of.' }),
    parent: fk('standards/chapter', { onDelete: 'cascade', tree: true, description: 'Parent chapter; deleting a chapter deletes its sub-chapters.' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes that implement the requirement.' }),
  },
});

export default [category, standard, chapter];

/** Demo data (`manage seed --demo`): ISO 9001 and ISO 45001, a few chapters. */
export const demo = [
  demoRows(category, [{ title: 'Qualität', order: 1 }, { title: 'Arbeitssicherheit', order: 2 }]),
  demoRows(standard, [
    { abbreviation: 'ISO 9001', title: 'ISO 9001:2015 Qualitätsmanagementsysteme', valid_from: '2015-09-15', categories: ['Qualität'] },
    { abbreviation: 'ISO 45001', title: 'ISO 45001:2018 Sicherheit und Gesundheit bei der Arbeit', valid_from: '2018-03-12', categories: ['Arbeitssicherheit'] },
  ]),
  demoRows(chapter, [
    { number: '4', title: 'Kontext der Organisation', standard: 'ISO 9001:2015 Qualitätsmanagementsysteme', order: 4, fulfilment_required: true, compliance: 80 },
    { number: '4.1', title: 'Verstehen der Organisation und ihres Kontextes', parent: 'Kontext der Organisation', standard: 'ISO 9001:2015 Qualitätsmanagementsysteme', order: 1, compliance: 90, processes: ['Unternehmen führen'] },
    { number: '8.4', title: 'Steuerung von extern bereitgestellten Prozessen, Produkten und Dienstleistungen', standard: 'ISO 9001:2015 Qualitätsmanagementsysteme', order: 8, compliance: 60, processes: ['Wareneingang prüfen'] },
  ]),
];
