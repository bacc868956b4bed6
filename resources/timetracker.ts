/** Timetracker module: recorded work times, absences and the monthly closing of each employee. */
import { defineModule, defineResource, demoRows, descriptionField, field, fk } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'timetracker', label: 'Time tracking', labelDe: 'Zeiterfassung' });

export const worktime = defineResource({
  module: 'timetracker',
  name: 'worktime',
  title: 'Work time (Arbeitszeit)',
  titleDe: 'Arbeitszeit',
  description: 'Time an employee worked on one day, given as start and end time or as hours, optionally booked on a project task.',
  fields: {
    date: field.date({ required: true, description: 'Day the work was done.' }),
    start_time: field.time({ description: 'Time of day the work started; without an end time the timer is still running.' }),
    end_time: field.time({ description: 'Time of day the work ended; entries crossing midnight are split.' }),
    break_minutes: field.integer({ minimum: 0, maximum: 1440, default: 0, description: 'Break taken within start and end, in minutes.' }),
    hours: field.decimal({ digits: 5, decimals: 2, minimum: 0, maximum: 24, description: 'Worked hours, when recorded as a duration instead of start and end.' }),
    description: descriptionField('What was done.'),
  },
  relations: {
    // time records are payroll evidence: an employee with records is archived, not deleted
    employee: fk('organisation/mitarbeitende', { required: true, onDelete: 'protect', description: 'Employee (Mitarbeitende) who worked.' }),
    project: fk('projects/project', { onDelete: 'protect', description: 'Project the time is booked on.' }),
    task: fk('projects/task', { onDelete: 'protect', description: 'Task (cost centre / time budget) of the project the time is booked on.' }),
    card: fk('teams/card', { onDelete: 'set null', description: 'Teams card the work was done for.' }),
    issue: fk('issue/issue', { onDelete: 'set null', description: 'Issue the work was done for.' }),
  },
  rules: [{ kind: 'order', earlier: 'start_time', later: 'end_time' }],
});

export const absence = defineResource({
  module: 'timetracker',
  name: 'absence',
  title: 'Absence (Abwesenheit)',
  titleDe: 'Abwesenheit',
  description: 'A period an employee is away (vacation, sickness, …), requested and then approved or rejected.',
  fields: {
    type: field.enum({
      values: ['vacation', 'sick', 'accident', 'military', 'parental', 'training', 'compensation', 'unpaid', 'other'],
      default: 'vacation',
      description: 'Kind of absence: vacation, sick, accident, military (military or civil service), parental leave, training, compensation (overtime taken off), unpaid leave or other.',
    }),
    start_date: field.date({ required: true, description: 'First day of the absence.' }),
    end_date: field.date({ required: true, description: 'Last day of the absence (inclusive).' }),
    day_part: field.enum({
      values: ['full_day', 'morning', 'afternoon'],
      default: 'full_day',
      description: 'Part of each day in the range the absence covers; half days count 0.5.',
    }),
    description: descriptionField('Reason or remarks.'),
    state: field.state({
      values: ['planned', 'in_review', 'approved', 'rejected', 'cancelled'],
      default: 'planned',
      // approved on create: absence types that are approved automatically
      initial: ['planned', 'approved'],
      transitions: {
        planned: ['in_review', 'cancelled'],
        in_review: ['planned', 'approved', 'rejected', 'cancelled'],
        approved: ['cancelled'],
        rejected: ['planned'],
      },
      description: 'planned, in_review (submitted), approved, rejected (can be planned again), cancelled (final). Only approved absences count.',
    }),
  },
  relations: {
    employee: fk('organisation/mitarbeitende', { required: true, onDelete: 'protect', description: 'Employee (Mitarbeitende) who is absent.' }),
  },
  rules: [{ kind: 'order', earlier: 'start_date', later: 'end_date' }],
});

export const monthlyclosing = defineResource({
  module: 'timetracker',
  name: 'monthlyclosing',
  deprecatedPaths: ['/api/monthlyclosing'],
  title: 'Monthly closing (Monatsabschluss)',
  titleDe: 'Monatsabschluss',
  description: "The balances of one employee's month; closing it locks the month's entries and is irreversible.",
  fields: {
    year: field.integer({ required: true, minimum: 2000, maximum: 2100, description: 'Year of the closed month.' }),
    month: field.integer({ required: true, minimum: 1, maximum: 12, description: 'Month number, 1 (January) to 12.' }),
    state: field.state({
      values: ['open', 'closed'],
      default: 'open',
      initial: ['open'],
      transitions: { open: ['closed'] },
      description: 'open (balances may be refreshed) or closed (final: entries locked; corrections go into the next month).',
    }),
    worked_hours: field.decimal({ digits: 7, decimals: 2, description: 'Hours worked in the month.' }),
    target_hours: field.decimal({ digits: 7, decimals: 2, description: 'Hours the employee was to work in the month.' }),
    flextime_balance: field.decimal({ digits: 8, decimals: 2, description: 'Cumulative flextime balance (Gleitzeitsaldo) at month end, in hours; negative when under.' }),
    vacation_balance: field.decimal({ digits: 6, decimals: 2, description: 'Remaining vacation days at month end.' }),
    sick_days: field.decimal({ digits: 5, decimals: 1, minimum: 0, description: 'Sick days in the month.' }),
    flextime_correction: field.decimal({ digits: 7, decimals: 2, description: 'Manual flextime correction in hours (positive or negative).' }),
    vacation_correction: field.decimal({ digits: 5, decimals: 2, description: 'Manual vacation correction in days (positive or negative).' }),
    remarks: field.text({ allowBlank: true, search: true, description: 'Remarks on the closing.' }),
  },
  relations: {
    employee: fk('organisation/mitarbeitende', { required: true, onDelete: 'protect', description: 'Employee (Mitarbeitende) whose month is closed.' }),
    closed_by: fk('user', { onDelete: 'set null', description: 'User who closed the month.' }),
  },
});

export default [worktime, absence, monthlyclosing];

/** Demo data (`manage seed --demo`): a few days of work, absences and a closed month. */
export const demo = [
  demoRows(worktime, [
    { employee: 'anna.keller', date: '2026-03-02', start_time: '07:30:00', end_time: '16:30:00', break_minutes: 45, project: 'Einführung ISO 9001:2015', task: 'Prozesse aufnehmen', description: 'Workshop Prozesslandkarte' },
    { employee: 'reto.gerber', date: '2026-03-02', start_time: '06:00:00', end_time: '14:45:00', break_minutes: 30, issue: 'Gratbildung an Drehteilen' },
    { employee: 'eva.schneider', date: '2026-03-03', start_time: '08:00:00', end_time: '12:00:00', card: 'Prüfmittelliste aktualisieren' },
  ]),
  demoRows(absence, [
    { employee: 'beat.meier', type: 'vacation', start_date: '2026-07-13', end_date: '2026-07-31', state: 'approved' },
    { employee: 'reto.gerber', type: 'military', start_date: '2026-05-04', end_date: '2026-05-22', state: 'in_review' },
    { employee: 'sandra.frei', type: 'sick', start_date: '2026-03-09', end_date: '2026-03-10', day_part: 'full_day', state: 'planned' },
  ]),
  demoRows(monthlyclosing, [
    { employee: 'anna.keller', year: 2026, month: 1, state: 'closed', worked_hours: '148.50', target_hours: '147.00', closed_by: 'claudia.brunner' },
    { employee: 'anna.keller', year: 2026, month: 2, state: 'open' },
  ]),
];
