/** KPI module (Kennzahlen): key performance indicators, their folders and measurements. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, trafficLightField, visibilityField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'kpi', label: 'Key figures', labelDe: 'Kennzahlen' });

export const folder = defineResource({
  module: 'kpi',
  name: 'folder',
  title: 'KPI folder',
  description: 'A folder grouping KPIs, with its own admins and team. Changing or deleting it needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the folder.'),
    description: descriptionField('What the folder contains (markdown).'),
    visibility: visibilityField('normal: every user with the view permission; protected: its admins, its creator and its team members only.'),
  },
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users with full access to the folder and its KPIs.' }),
    team_members: m2m('user', { writeName: 'team_member_ids', description: 'Users who may read the folder and its KPIs.' }),
  },
  access: {
    view: { any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'team_members' }] },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const kpi = defineResource({
  module: 'kpi',
  name: 'kpi',
  trash: true,
  title: 'KPI (Kennzahl)',
  titleDe: 'Kennzahl',
  description:
    'A key performance indicator with a unit, a target value and the direction in which it improves. Visible to who sees its folder ' +
    "(to all without one); in a protected folder changed only by the folder's admins and creator and the KPI's owner and creator.",
  fields: {
    title: titleField('Name of the KPI.'),
    description: descriptionField('What the KPI measures and how (markdown).'),
    unit: field.string({ maxLength: 50, allowBlank: true, description: 'Unit of the values, e.g. `%`, `CHF`, `days`.' }),
    target_value: field.decimal({ digits: 18, decimals: 4, description: 'Value the KPI should reach.' }),
    direction: field.enum({
      values: ['higher_is_better', 'lower_is_better'],
      default: 'higher_is_better',
      description: 'Whether values above (higher_is_better) or below (lower_is_better) the target are good.',
    }),
    rating: trafficLightField('Current traffic-light rating: green, orange or red.'),
    rating_comment: field.text({ allowBlank: true, description: 'Why the KPI has its current rating.' }),
    next_measurement: field.date({ description: 'Date the next measurement is due.' }),
    show_chart: field.boolean({ default: true, description: 'Whether the measurements are shown as a chart.' }),
    archived: archivedField('Archived KPIs keep their measurements but are hidden from daily work.'),
  },
  relations: {
    // protect: a folder carries the KPIs' access settings, so it is emptied before it goes
    folder: fk('kpi/folder', { onDelete: 'protect', description: 'Folder the KPI is filed in; null for top level.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User responsible for the KPI and its measurements.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion) responsible for the KPI.' }),
    periodicity: fk('process/periodizitaet', { onDelete: 'set null', description: 'How often the KPI is measured (Periodizität).' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes the KPI measures.' }),
  },
  access: {
    view: { any: [{ unset: 'folder' }, { via: 'folder', action: 'view' }] },
    change: {
      any: [
        { unset: 'folder' },
        { via: 'folder', rule: { field: 'visibility', in: ['normal'] } },
        { via: 'folder', action: 'change' },
        { userIs: 'owner' },
        { userIs: 'created_by' },
      ],
    },
  },
});

export const measurement = defineResource({
  module: 'kpi',
  name: 'measurement',
  title: 'Measurement (Messung)',
  titleDe: 'Messung',
  description: 'One measured value of a KPI on a date; seen and changed by who may see and change the KPI.',
  fields: {
    date: field.date({ required: true, description: 'Date the value was measured.' }),
    value: field.decimal({ digits: 18, decimals: 4, required: true, description: 'Measured value, in the unit of the KPI.' }),
    target_value: field.decimal({ digits: 18, decimals: 4, description: "Target for this measurement when it differs from the KPI's target." }),
    rating: trafficLightField('Traffic-light rating of the value: green, orange or red.'),
    trend: field.enum({
      values: ['trending_up', 'trending_flat', 'trending_down'],
      description: 'Trend since the previous measurement: trending_up, trending_flat or trending_down.',
    }),
    description: descriptionField('Comment on the measurement (markdown).'),
  },
  relations: {
    kpi: fk('kpi/kpi', { required: true, onDelete: 'cascade', description: 'KPI the value belongs to; deleting the KPI deletes its measurements.' }),
  },
  access: { view: { via: 'kpi', action: 'view' }, change: { via: 'kpi', action: 'change' } },
});

export default [folder, kpi, measurement];

/** Demo data (`manage seed --demo`): key figures of production and quality. */
export const demo = [
  demoRows(folder, [{ title: 'Produktion', admins: ['daniel.huber'] }, { title: 'Qualität', admins: ['anna.keller'] }]),
  demoRows(kpi, [
    { title: 'Liefertreue', unit: '%', target_value: '95.00', direction: 'higher_is_better', rating: 'orange', folder: 'Produktion', owner: 'daniel.huber', processes: ['Aufträge abwickeln'] },
    { title: 'Ausschussquote', unit: '%', target_value: '1.50', direction: 'lower_is_better', rating: 'green', folder: 'Qualität', owner: 'anna.keller' },
    { title: 'Reklamationen pro Monat', unit: 'Anzahl', target_value: '2.00', direction: 'lower_is_better', rating: 'red', folder: 'Qualität', owner: 'eva.schneider' },
  ]),
  demoRows(measurement, [
    { key: 'liefertreue-2026-01', kpi: 'Liefertreue', date: '2026-01-31', value: '93.40', rating: 'orange', trend: 'trending_up' },
    { key: 'liefertreue-2026-02', kpi: 'Liefertreue', date: '2026-02-28', value: '94.80', rating: 'orange', trend: 'trending_up' },
    { key: 'ausschuss-2026-02', kpi: 'Ausschussquote', date: '2026-02-28', value: '1.20', rating: 'green', trend: 'trending_flat' },
    { key: 'reklamationen-2026-02', kpi: 'Reklamationen pro Monat', date: '2026-02-28', value: '4.00', rating: 'red', trend: 'trending_down' },
  ]),
];
