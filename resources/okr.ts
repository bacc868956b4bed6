/** OKR module (Kompass): objective systems, their periods, objectives, key results and progress updates. */
import { defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField, trafficLightField, visibilityField } from '../engine/declare/index.js';

// The lifecycle objectives and key results share.
const goalState = () =>
  field.state({
    values: ['draft', 'released', 'in_progress', 'completed', 'cancelled'],
    default: 'draft',
    initial: ['draft', 'released'],
    transitions: {
      draft: ['released', 'cancelled'],
      released: ['in_progress', 'draft', 'cancelled'],
      in_progress: ['completed', 'cancelled'],
    },
    description: 'draft → released → in_progress → completed; cancelled from any open state. completed and cancelled are final.',
  });

export const moduleLabel = defineModule({ name: 'okr', label: 'Objectives (OKR)', labelDe: 'Kompass (OKR)' });

export const system = defineResource({
  module: 'okr',
  name: 'system',
  title: 'Objective system (Zielsystem)',
  titleDe: 'Zielsystem',
  description:
    'A system of objectives (OKR or management review) with its vision, mission and strategy. ' +
    'Changing or deleting it needs being one of its owners or its creator.',
  fields: {
    title: titleField('Name of the system.'),
    type: field.enum({
      values: ['okr', 'management_review'],
      default: 'okr',
      description: 'okr: objectives and key results; management_review: periodic management review.',
    }),
    vision: field.text({ allowBlank: true, search: true, description: 'Vision statement (markdown).' }),
    mission: field.text({ allowBlank: true, search: true, description: 'Mission statement (markdown).' }),
    strategy: field.text({ allowBlank: true, search: true, description: 'Strategy (markdown).' }),
    north_star: field.text({ allowBlank: true, search: true, description: 'North-star metric or goal (markdown).' }),
    visibility: visibilityField('normal: every user with the view permission; protected: its owners and its creator only, with its periods, objectives, results and updates.'),
  },
  relations: {
    owners: m2m('user', { writeName: 'owner_ids', description: 'Users responsible for the system.' }),
  },
  access: {
    view: { any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'owners' }, { userIs: 'created_by' }] },
    change: { any: [{ userAmong: 'owners' }, { userIs: 'created_by' }] },
  },
});

export const period = defineResource({
  module: 'okr',
  name: 'period',
  title: 'Period (Periode)',
  titleDe: 'Periode',
  description: 'A time span of a system in which objectives are pursued; visible to who sees the system.',
  fields: {
    title: titleField('Name of the period, e.g. `2027 Q1`.'),
    description: descriptionField('Focus of the period (markdown).'),
    start: field.date({ required: true, description: 'First day of the period.' }),
    end: field.date({ required: true, description: 'Last day of the period; not before `start`.' }),
    state: field.state({
      values: ['planning', 'in_progress', 'done'],
      default: 'planning',
      initial: ['planning', 'in_progress'],
      transitions: { planning: ['in_progress'], in_progress: ['done', 'planning'], done: ['in_progress'] },
      description: 'Status of the period: planning, in_progress or done (done may be reopened).',
    }),
  },
  relations: {
    system: fk('okr/system', { required: true, onDelete: 'cascade', description: 'System the period belongs to; deleting the system deletes its periods.' }),
  },
  access: { view: { via: 'system', action: 'view' } },
  rules: [{ kind: 'order', earlier: 'start', later: 'end' }],
});

export const objective = defineResource({
  module: 'okr',
  name: 'objective',
  title: 'Objective (Ziel)',
  titleDe: 'Ziel',
  description: 'A qualitative goal of a period, measured by its key results; visible to who sees the period.',
  fields: {
    title: titleField('The objective in one sentence.'),
    description: descriptionField('Why the objective matters (markdown).'),
    state: goalState(),
    order: positionField('Position of the objective within its period, ascending.'),
  },
  relations: {
    period: fk('okr/period', { required: true, onDelete: 'cascade', description: 'Period the objective belongs to; deleting the period deletes its objectives.' }),
    responsible_users: m2m('user', { writeName: 'responsible_user_ids', description: 'Users responsible for the objective.' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes involved in reaching the objective.' }),
    kpis: m2m('kpi/kpi', { writeName: 'kpi_ids', description: 'KPIs related to the objective.' }),
  },
  access: { view: { via: 'period', action: 'view' } },
});

export const result = defineResource({
  module: 'okr',
  name: 'result',
  title: 'Key result (Schlüsselergebnis)',
  titleDe: 'Schlüsselergebnis',
  description: 'A measurable result that shows progress towards an objective; visible to who sees the objective.',
  fields: {
    title: titleField('The key result in one sentence.'),
    description: descriptionField('How the result is measured (markdown).'),
    unit: field.string({ maxLength: 50, allowBlank: true, description: 'Unit of the values, e.g. `%`, `customers`.' }),
    start_value: field.decimal({ digits: 18, decimals: 4, description: 'Value at the start of the period.' }),
    target_value: field.decimal({ digits: 18, decimals: 4, description: 'Value to be reached.' }),
    current_value: field.decimal({ digits: 18, decimals: 4, description: 'Latest known value.' }),
    progress: field.integer({ minimum: 0, maximum: 100, default: 0, description: 'Percent achieved, entered or taken from the latest update.' }),
    estimated_budget: field.decimal({ digits: 14, decimals: 2, description: 'Estimated cost in CHF.' }),
    estimated_effort: field.decimal({ digits: 10, decimals: 2, description: 'Estimated effort in person-days.' }),
    state: goalState(),
  },
  relations: {
    objective: fk('okr/objective', { required: true, onDelete: 'cascade', description: 'Objective the result belongs to; deleting the objective deletes its results.' }),
    responsible_users: m2m('user', { writeName: 'responsible_user_ids', description: 'Users responsible for the result.' }),
  },
  access: { view: { via: 'objective', action: 'view' } },
});

export const update = defineResource({
  module: 'okr',
  name: 'update',
  title: 'Progress update',
  description: 'A dated progress report on a key result; visible to who sees the result.',
  fields: {
    date: field.date({ required: true, description: 'Date of the report.' }),
    value: field.decimal({ digits: 18, decimals: 4, description: "Value reached at the date, in the result's unit." }),
    progress: field.integer({ minimum: 0, maximum: 100, required: true, description: 'Percent of the key result achieved at the date.' }),
    rating: trafficLightField('Traffic-light rating: green, orange or red.'),
    trend: field.enum({ values: ['positive', 'stable', 'negative'], description: 'Trend since the last update: positive, stable or negative.' }),
    comment: field.text({ allowBlank: true, search: true, description: 'Comment on the progress (markdown).' }),
  },
  relations: {
    result: fk('okr/result', { required: true, onDelete: 'cascade', description: 'Key result the update reports on; deleting the result deletes its updates.' }),
  },
  access: { view: { via: 'result', action: 'view' } },
});

export default [system, period, objective, result, update];

/** Demo data (`manage seed --demo`): the company's compass for 2026. */
export const demo = [
  demoRows(system, [{ title: 'Kompass Alpenblick', type: 'okr', vision: 'Präzision aus Winterthur, weltweit gefragt.', owners: ['beat.meier'] }]),
  demoRows(period, [
    { title: '2026 H1', system: 'Kompass Alpenblick', start: '2026-01-01', end: '2026-06-30', state: 'in_progress' },
    { title: '2026 H2', system: 'Kompass Alpenblick', start: '2026-07-01', end: '2026-12-31', state: 'planning' },
  ]),
  demoRows(objective, [
    { title: 'Wir liefern pünktlich', period: '2026 H1', state: 'in_progress', responsible_users: ['daniel.huber'], kpis: ['Liefertreue'] },
    { title: 'Wir sind zertifiziert', period: '2026 H1', state: 'released', responsible_users: ['anna.keller'] },
  ]),
  demoRows(result, [
    { title: 'Liefertreue von 92 % auf 96 %', objective: 'Wir liefern pünktlich', unit: '%', start_value: '92.00', target_value: '96.00', current_value: '94.80', progress: 70, state: 'in_progress' },
    { title: 'Alle Kernprozesse freigegeben', objective: 'Wir sind zertifiziert', unit: 'Prozesse', start_value: '0.00', target_value: '6.00', current_value: '2.00', progress: 33, state: 'released' },
  ]),
  demoRows(update, [{ result: 'Liefertreue von 92 % auf 96 %', date: '2026-02-28', value: '94.80', progress: 70, rating: 'green', trend: 'positive', comment: 'Neue Feinplanung greift.' }]),
];
