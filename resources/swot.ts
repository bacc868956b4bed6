/** SWOT module ("IKS", internal control system): estimates of strengths, weaknesses, opportunities and threats, measures and their controls. */
import { defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'swot', label: 'Internal control (SWOT)', labelDe: 'IKS (SWOT)' });

export const estimate = defineResource({
  module: 'swot',
  name: 'estimate',
  title: 'Estimate (Einschätzung)',
  titleDe: 'Einschätzung',
  description: 'A rated strength, weakness, opportunity or threat (risk); score = probability × impact (1–25).',
  fields: {
    kind: field.enum({
      values: ['strength', 'weakness', 'opportunity', 'threat'],
      required: true,
      description: 'SWOT kind: strength, weakness, opportunity or threat.',
    }),
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Reference number of the estimate.' }),
    title: titleField('Short name of the estimate.'),
    description: descriptionField('Description (markdown).'),
    cause: field.text({ allowBlank: true, search: true, description: 'Analysis and cause (markdown).' }),
    possible_measures: field.text({ allowBlank: true, description: 'Measures that could be taken (markdown).' }),
    probability: field.integer({ minimum: 1, maximum: 5, required: true, description: 'Probability of occurrence, 1 (rare) to 5 (almost certain).' }),
    impact: field.integer({ minimum: 1, maximum: 5, required: true, description: 'Impact if it occurs, 1 (negligible) to 5 (severe).' }),
    status: field.state({
      values: ['active', 'in_progress', 'accepted', 'closed', 'postponed', 'archived'],
      default: 'active',
      initial: ['active', 'in_progress', 'postponed'],
      // The docs give no transition rules; every move is allowed but recorded (rating history).
      transitions: {
        active: ['in_progress', 'accepted', 'closed', 'postponed', 'archived'],
        in_progress: ['active', 'accepted', 'closed', 'postponed', 'archived'],
        accepted: ['active', 'in_progress', 'closed', 'postponed', 'archived'],
        closed: ['active', 'in_progress', 'archived'],
        postponed: ['active', 'in_progress', 'accepted', 'closed', 'archived'],
        archived: ['active'],
      },
      description: 'active, in_progress, accepted (risk accepted), closed, postponed or archived; maps show active and in_progress.',
    }),
    recorded_on: field.date({ description: 'Day the estimate was recorded.' }),
  },
  relations: {
    recorded_by: fk('user', { onDelete: 'set null', description: 'User who recorded the estimate.' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes the estimate affects.' }),
    responsible_functions: m2m('organisation/funktionen', {
      writeName: 'responsible_function_ids',
      targetColumn: 'function_id',
      description: 'Functions (Funktionen, roles) responsible for the estimate.',
    }),
  },
});

export const measure = defineResource({
  module: 'swot',
  name: 'measure',
  title: 'Measure (Massnahme)',
  titleDe: 'Massnahme',
  description: 'An action taken on an estimate or another object, possibly recurring, checked by controls.',
  fields: {
    title: titleField('Name of the measure.'),
    description: descriptionField('What is to be done (markdown).'),
    deadline: field.date({ description: 'Date by which the measure is due; past deadlines are overdue.' }),
    periodicity: field.integer({ minimum: 0, maximum: 365, description: 'How often per year a recurring measure is carried out; empty for one-off measures.' }),
    status: field.state({
      values: ['planned', 'running', 'in_progress', 'completed', 'postponed'],
      default: 'planned',
      initial: ['planned', 'running', 'in_progress'],
      transitions: {
        planned: ['running', 'in_progress', 'completed', 'postponed'],
        running: ['in_progress', 'completed', 'postponed'],
        in_progress: ['running', 'completed', 'postponed'],
        postponed: ['planned', 'running', 'in_progress'],
        // a recurring measure is planned again for its next deadline
        completed: ['planned'],
      },
      description: 'planned, running, in_progress, completed or postponed.',
    }),
  },
  relations: {
    estimate: fk('swot/estimate', { onDelete: 'set null', description: 'Estimate the measure addresses.' }),
    responsible_person: fk('user', { onDelete: 'set null', assignee: true, description: 'User responsible for carrying out the measure.' }),
    controlling_person: fk('user', { onDelete: 'set null', description: 'User who controls the measure.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion, role) responsible for carrying out the measure.' }),
    controlling_function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion, role) that controls the measure.' }),
  },
});

export const control = defineResource({
  module: 'swot',
  name: 'control',
  title: 'Control (Kontrolle)',
  titleDe: 'Kontrolle',
  description: 'A check that a measure was carried out, with its outcome.',
  fields: {
    date: field.date({ required: true, description: 'Day the control was carried out.' }),
    comment: field.text({ allowBlank: true, search: true, description: 'Findings of the control (markdown).' }),
    status: field.state({
      values: ['in_progress', 'done', 'rejected', 'done_with_defects'],
      default: 'in_progress',
      initial: ['in_progress'],
      transitions: {
        in_progress: ['done', 'rejected', 'done_with_defects'],
        // defects fixed later
        done_with_defects: ['done'],
      },
      description: 'in_progress, done, rejected or done_with_defects.',
    }),
  },
  relations: {
    // protect: controls are audit evidence of the internal control system.
    measure: fk('swot/measure', { required: true, onDelete: 'protect', description: 'Measure being controlled.' }),
    control_person: fk('user', { onDelete: 'set null', description: 'User who carried out the control.' }),
  },
});

export default [estimate, measure, control];

/** Demo data (`manage seed --demo`): risks and chances with their measures. */
export const demo = [
  demoRows(estimate, [
    { number: 'R-01', kind: 'threat', title: 'Ausfall Hauptlieferant Stahl', probability: 2, impact: 4, status: 'in_progress', recorded_by: 'beat.meier', processes: ['Aufträge abwickeln'], recorded_on: '2026-01-20' },
    { number: 'C-01', kind: 'opportunity', title: 'Medizinaltechnik als neues Marktsegment', probability: 3, impact: 3, status: 'active', recorded_by: 'beat.meier' },
    { number: 'S-01', kind: 'strength', title: 'Erfahrene Polymechaniker', probability: 4, impact: 3, status: 'accepted' },
  ]),
  demoRows(measure, [{ title: 'Zweitlieferant qualifizieren', estimate: 'Ausfall Hauptlieferant Stahl', deadline: '2026-06-30', status: 'running', responsible_person: 'daniel.huber', controlling_person: 'anna.keller' }]),
  demoRows(control, [{ key: 'zweitlieferant-q1', measure: 'Zweitlieferant qualifizieren', date: '2026-03-31', status: 'in_progress', control_person: 'anna.keller', comment: 'Zwei Offerten liegen vor.' }]),
];
