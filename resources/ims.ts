/** IMS module (integrated management systems): management systems, asset categories and assets (aspects). */
import { archivedField, catalogueFields, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'ims', label: 'Management systems', labelDe: 'Managementsysteme' });

export const system = defineResource({
  module: 'ims',
  name: 'system',
  title: 'System (management system)',
  description: 'A management system (e.g. quality, environment, information security) tying together its standards and trackers.',
  fields: catalogueFields({
    title: 'Name of the management system.',
    description: 'Scope of the management system (markdown).',
    archived: 'Archived systems are kept but hidden from daily work.',
  }),
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the system.' }),
    team_members: m2m('user', { writeName: 'team_member_ids', description: 'Users who work on the system.' }),
    standards: m2m('standards/standard', { writeName: 'standard_ids', description: 'Standards the system implements.' }),
    trackers: m2m('issue/tracker', { writeName: 'tracker_ids', description: 'Issue trackers belonging to the system.' }),
  },
});

export const assetcategory = defineResource({
  module: 'ims',
  name: 'assetcategory',
  title: 'Asset category (Aspektkategorie)',
  titleDe: 'Aspektkategorie',
  description: 'A category of assets (aspects) within one management system.',
  fields: {
    title: titleField('Name of the category.'),
    description: descriptionField('What the category covers (markdown).'),
    order: positionField('Position among the categories of the system (ascending).'),
  },
  relations: {
    system: fk('ims/system', { required: true, onDelete: 'cascade', description: 'Management system the category belongs to.' }),
  },
});

export const asset = defineResource({
  module: 'ims',
  name: 'asset',
  title: 'Asset (Aspekt)',
  titleDe: 'Aspekt',
  description: 'An asset or aspect of a management system (e.g. a machine, an IT system, an environmental aspect).',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Inventory or reference number.' }),
    title: titleField('Name of the asset.'),
    description: descriptionField('Description (markdown).'),
    cause: field.text({ allowBlank: true, description: 'Analysis and cause (markdown).' }),
    possible_measures: field.text({ allowBlank: true, description: 'Measures that could be taken (markdown).' }),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Where the asset is.' }),
    value: field.decimal({ digits: 14, decimals: 2, minimum: 0, description: 'Monetary value of the asset.' }),
    influence: field.enum({
      values: ['none', 'indirect', 'direct'],
      default: 'none',
      description: 'How far the organisation can influence the aspect: none, indirect or direct.',
    }),
    in_scope: field.boolean({ default: true, description: 'Whether the asset lies within the scope of the system.' }),
    state: field.state({
      values: ['planned', 'in_use', 'in_maintenance', 'retired', 'disposed'],
      default: 'in_use',
      initial: ['planned', 'in_use'],
      transitions: {
        planned: ['in_use', 'disposed'],
        in_use: ['in_maintenance', 'retired', 'disposed'],
        in_maintenance: ['in_use', 'retired', 'disposed'],
        retired: ['in_use', 'disposed'],
      },
      description: 'Lifecycle: planned, in_use, in_maintenance, retired, disposed (final).',
    }),
    archived: archivedField('Archived assets are kept but hidden from daily work.'),
  },
  relations: {
    // protect: assets are substantive records, not mere parts of the system.
    system: fk('ims/system', { required: true, onDelete: 'protect', description: 'Management system the asset belongs to.' }),
    parent: fk('ims/asset', { onDelete: 'cascade', tree: true, description: 'Parent asset; deleting an asset deletes its sub-assets.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User responsible for the asset.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion, role) responsible for the asset.' }),
    categories: m2m('ims/assetcategory', {
      writeName: 'category_ids',
      sameParent: { local: 'system', remote: 'system' },
      description: "Categories of the asset; each must belong to the asset's system.",
    }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes the asset is used in.' }),
    estimates: m2m('swot/estimate', { writeName: 'estimate_ids', description: 'SWOT estimates (risks and chances) concerning the asset.' }),
  },
});

export default [system, assetcategory, asset];

/** Demo data (`manage seed --demo`): the integrated management system and its assets. */
export const demo = [
  demoRows(system, [{ title: 'IMS Alpenblick', admins: ['anna.keller'], standards: ['ISO 9001:2015 Qualitätsmanagementsysteme', 'ISO 45001:2018 Sicherheit und Gesundheit bei der Arbeit'], trackers: ['Qualitätsmeldungen', 'Arbeitssicherheit'] }]),
  demoRows(assetcategory, [{ title: 'Maschinen', system: 'IMS Alpenblick', order: 1 }, { title: 'Gebäude', system: 'IMS Alpenblick', order: 2 }]),
  demoRows(asset, [
    { number: 'M-101', title: 'CNC-Fräse DMG 65', system: 'IMS Alpenblick', categories: ['Maschinen'], location: 'Halle Nord', value: '350000.00', state: 'in_use', owner: 'daniel.huber', influence: 'direct', in_scope: true },
    { number: 'M-102', title: 'Koordinatenmessmaschine', system: 'IMS Alpenblick', categories: ['Maschinen'], location: 'Messraum', state: 'in_maintenance', owner: 'eva.schneider' },
    { number: 'G-01', title: 'Halle Grüze', system: 'IMS Alpenblick', categories: ['Gebäude'], state: 'in_use' },
  ]),
];
