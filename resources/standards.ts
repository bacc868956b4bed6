/** Standards module: norms (e.g. ISO 9001), their categories and their chapters with compliance ratings. */
import { archivedField, defineModule, defineResource, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

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
