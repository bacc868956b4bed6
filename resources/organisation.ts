/** Organisation module: employees, the units and functions they work in, their employment terms and skills. */
import {
  type AccessRule,
  archivedField,
  catalogueFields,
  COUNTRY_CODES,
  defineModule,
  defineResource,
  demoRows,
  descriptionField,
  field,
  fk,
  guardedFields,
  m2m,
  titleField,
} from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'organisation', label: 'Organisation', labelDe: 'Organisation' });

/** An employee's private data: read and changed only by those holding these (HR). */
const PRIVATE_DATA = { read: 'organisation.view_private_data', write: 'organisation.change_private_data' };

export const mitarbeitende = defineResource({
  module: 'organisation',
  name: 'mitarbeitende',
  deprecatedPaths: ['/api/mitarbeitende'],
  title: 'Employee (Mitarbeitende)',
  titleDe: 'Mitarbeitende',
  description: 'A person employed by or working for the organisation.',
  extraPermissions: {
    view_private_data: "Read employees' private data (birth date, civil status, private address, AHV number, bank account, HR notes).",
    change_private_data: "Change employees' private data.",
  },
  fields: {
    vorname: field.string({ maxLength: 100, required: true, search: true, description: 'Given name (Vorname).' }),
    nachname: field.string({ maxLength: 100, required: true, search: true, description: 'Family name (Nachname).' }),
    email: field.email({ maxLength: 254, search: true, description: 'Business e-mail address.' }),
    phone: field.string({ maxLength: 50, allowBlank: true, description: 'Business phone number.' }),
    employment_type: field.enum({
      values: ['intern', 'extern', 'ehemalig'],
      default: 'intern',
      description: 'Employment type: intern (staff), extern (external) or ehemalig (former employee).',
    }),
    entry_date: field.date({ description: 'First day of employment.' }),
    exit_date: field.date({ description: 'Last day of employment.' }),
    archived: archivedField('Archived employees are kept but hidden from daily work.'),
    ...guardedFields(PRIVATE_DATA, {
      birth_date: field.date({ filter: true, description: 'Date of birth (Geburtsdatum).' }),
      civil_status: field.enum({
        values: ['single', 'married', 'registered_partnership', 'divorced', 'dissolved_partnership', 'widowed', 'separated'],
        description: 'Civil status (Zivilstand).',
      }),
      nationalities: field.json({
        schema: { type: 'array', items: { type: 'string', enum: COUNTRY_CODES }, uniqueItems: true, maxItems: 5 },
        default: [],
        description: 'Nationalities (Staatsangehörigkeiten) as ISO 3166-1 alpha-2 codes, e.g. `["CH", "IT"]`.',
      }),
      place_of_origin: field.string({ maxLength: 100, allowBlank: true, description: 'Place of origin (Heimatort) of a Swiss citizen.' }),
      private_street: field.string({ maxLength: 200, allowBlank: true, description: 'Private address: street and number.' }),
      private_zip: field.string({ maxLength: 20, allowBlank: true, description: 'Private address: postal code (PLZ).' }),
      private_city: field.string({ maxLength: 100, allowBlank: true, description: 'Private address: town or city (Ort).' }),
      private_country: field.enum({ values: COUNTRY_CODES, filter: false, description: 'Private address: country as an ISO 3166-1 alpha-2 code.' }),
      private_email: field.email({ maxLength: 254, description: 'Private e-mail address.' }),
      private_phone: field.string({ maxLength: 50, allowBlank: true, description: 'Private phone number.' }),
      private_mobile: field.string({ maxLength: 50, allowBlank: true, description: 'Private mobile number.' }),
      ahv_number: field.ahv({
        description: 'Swiss social security number (AHV-Nummer) `756.XXXX.XXXX.XX`, checked by its check digit; spaces and dots as typed are accepted. Stored encrypted.',
      }),
      iban: field.iban({ description: 'IBAN of the salary account, checked by its check digits; stored without spaces, encrypted.' }),
      emergency_contact: field.text({ maxLength: 500, allowBlank: true, description: 'Whom to call in an emergency: name, relation and phone number.' }),
      hr_notes: field.text({ allowBlank: true, search: true, description: 'Notes of the HR department (markdown); searched only for those who may read them.' }),
    }),
  },
  relations: {
    user: fk('user', { onDelete: 'set null', description: 'User account the employee signs in with.' }),
    supervisor: fk('organisation/mitarbeitende', { onDelete: 'set null', tree: true, description: 'Direct supervisor (Vorgesetzte).' }),
    orgunit: fk('organisation/orgunit', { onDelete: 'set null', description: 'Main organisational unit the employee belongs to.' }),
  },
  ordering: ['nachname', 'vorname'],
  rules: [{ kind: 'order', earlier: 'entry_date', later: 'exit_date' }],
});

export const orgunit = defineResource({
  module: 'organisation',
  name: 'orgunit',
  title: 'Organisational unit (Organisationseinheit)',
  titleDe: 'Organisationseinheit',
  description: 'A department, team or other unit of the organisation chart, organised as a tree.',
  fields: {
    title: titleField('Name of the unit.'),
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Unit number or short code.' }),
    description: descriptionField('Purpose and tasks of the unit (markdown).'),
    state: field.state({
      values: ['draft', 'active', 'archived'],
      default: 'draft',
      initial: ['draft', 'active'],
      transitions: { draft: ['active', 'archived'], active: ['archived'], archived: ['active'] },
      description: 'Lifecycle: draft (Entwurf), active (Aktiv, shown in the org chart) or archived (Archiviert).',
    }),
    email: field.email({ maxLength: 254, description: 'Contact e-mail address of the unit.' }),
    phone: field.string({ maxLength: 50, allowBlank: true, description: 'Contact phone number of the unit.' }),
    website: field.url({ maxLength: 500, description: 'Website of the unit.' }),
    show_in_orgchart: field.boolean({ default: true, description: 'Whether the unit appears in the org chart.' }),
    staff_position: field.boolean({ default: false, description: 'Staff position (Stabsstelle) drawn beside, not below, its parent.' }),
    planned_fte: field.integer({ minimum: 0, maximum: 100000, description: 'Planned staffing in FTE percent (100 = one full-time position).' }),
  },
  relations: {
    // set null: sub-units survive as top-level units; units are normally archived, not deleted
    parent: fk('organisation/orgunit', { onDelete: 'set null', tree: true, description: 'Parent unit; null for a top-level unit.' }),
    head: fk('organisation/mitarbeitende', { onDelete: 'set null', description: 'Employee who leads the unit (Leitung).' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the unit and its members.' }),
    hr_admins: m2m('user', {
      writeName: 'hr_admin_ids',
      description: "HR administrators of the unit, who look after its members' employment data (a role: what they may read and change follows their permissions).",
    }),
  },
});

export const funktionen = defineResource({
  module: 'organisation',
  name: 'funktionen',
  title: 'Function (Funktion)',
  titleDe: 'Funktion',
  description: 'A role such as quality manager that employees hold; used as responsible, reviewing or approving role across modules.',
  fields: {
    abbreviation: field.string({ maxLength: 20, allowBlank: true, search: true, description: 'Short form, e.g. `QMB`.' }),
    title: titleField('Name of the function.'),
    description: descriptionField('Tasks of the function (markdown).'),
    competences: field.text({ allowBlank: true, description: 'Competences (Kompetenzen) the function holds (markdown).' }),
    responsibility: field.text({ allowBlank: true, description: 'Responsibility (Verantwortung) the function carries (markdown).' }),
    archived: archivedField('Archived functions are kept but no longer offered for selection.'),
  },
});

export const membership = defineResource({
  module: 'organisation',
  name: 'membership',
  title: 'Membership (Mitgliedschaft)',
  titleDe: 'Mitgliedschaft',
  description: 'An employee belonging to an organisational unit for a period, optionally in a function.',
  fields: {
    start: field.date({ description: 'First day of the membership.' }),
    end: field.date({ description: 'Last day of the membership; null = open-ended. Ended memberships stay as history.' }),
    degree: field.integer({ minimum: 0, maximum: 100, description: 'Share of the employment degree spent in this unit, in percent.' }),
    description: descriptionField('Notes on the membership.'),
    show_in_orgchart: field.boolean({ default: true, description: 'Whether the membership appears in the org chart.' }),
  },
  relations: {
    // cascade: memberships are part of the employee's record
    employee: fk('organisation/mitarbeitende', { required: true, onDelete: 'cascade', description: 'Employee who is a member.' }),
    // protect: a unit with membership history is archived rather than deleted
    orgunit: fk('organisation/orgunit', { required: true, onDelete: 'protect', description: 'Unit the employee belongs to.' }),
    function: fk('organisation/funktionen', { onDelete: 'set null', description: 'Function (Funktion) the employee holds in the unit.' }),
  },
  rules: [{ kind: 'order', earlier: 'start', later: 'end' }],
});

export const salary = defineResource({
  module: 'organisation',
  name: 'salary',
  deprecatedPaths: ['/api/salary'],
  title: 'Employment terms (Anstellungsverhältnis)',
  titleDe: 'Anstellungsverhältnis',
  description: 'The terms of an employment relationship for a period: degree, target hours, vacation and salary.',
  // pay is personal: not for agents
  mcp: false,
  fields: {
    valid_from: field.date({ required: true, description: 'First day these terms apply.' }),
    valid_to: field.date({ description: 'Last day these terms apply; null = open-ended.' }),
    amount: field.decimal({ digits: 14, decimals: 2, minimum: 0, description: 'Salary amount per wage period, in `currency`.' }),
    currency: field.enum({ values: ['CHF', 'EUR', 'USD'], default: 'CHF', description: 'Currency of the amount.' }),
    wage_type: field.enum({
      values: ['monthly', 'hourly', 'yearly'],
      default: 'monthly',
      description: 'Wage period the amount refers to: monthly, hourly or yearly.',
    }),
    degree: field.integer({ minimum: 0, maximum: 100, description: 'Employment degree (Pensum) in percent.' }),
    weekly_hours: field.decimal({ digits: 5, decimals: 2, minimum: 0, maximum: 168, description: 'Weekly target working hours; the daily target is a fifth of it.' }),
    work_time_model: field.enum({
      values: ['standard', 'half_day_flex', 'fixed_hours'],
      default: 'standard',
      description: 'Work-time model: standard (degree or weekly hours), half_day_flex (half days per weekday) or fixed_hours (hours per weekday).',
    }),
    trust_based: field.boolean({ default: false, description: 'Trust-based working time (Vertrauensarbeitszeit): no target hours, flextime always 0.' }),
    vacation_days: field.decimal({ digits: 5, decimals: 1, minimum: 0, maximum: 366, description: 'Vacation entitlement in days per year.' }),
    custom_vacation_days: field.decimal({ digits: 5, decimals: 1, minimum: 0, maximum: 366, description: 'Vacation entitlement overriding the calculated one, in days per year.' }),
  },
  relations: {
    // cascade: employment terms are part of the employee's record
    employee: fk('organisation/mitarbeitende', { required: true, onDelete: 'cascade', description: 'Employee the terms belong to.' }),
  },
  ordering: ['-valid_from'],
  rules: [{ kind: 'order', earlier: 'valid_from', later: 'valid_to' }],
});

export const skillCategory = defineResource({
  module: 'organisation',
  name: 'skill-category',
  title: 'Skill category (Skill-Kategorie)',
  titleDe: 'Skill-Kategorie',
  description: 'A group of related skills.',
  fields: catalogueFields({
    title: 'Name of the category.',
    description: 'What the category covers (markdown).',
    archived: 'Archived categories are kept but no longer offered for selection.',
  }),
});

export const skill = defineResource({
  module: 'organisation',
  name: 'skill',
  title: 'Skill',
  description: 'A skill or qualification employees can hold.',
  fields: catalogueFields({
    title: 'Name of the skill.',
    description: 'What the skill means (markdown).',
    archived: 'Archived skills are kept but no longer offered for selection.',
  }),
  relations: {
    categories: m2m('organisation/skill-category', { writeName: 'category_ids', description: 'Categories the skill belongs to.' }),
  },
});

/** The employee is the caller and employed today. */
const callersEmployee: AccessRule = { all: [{ userIs: 'user' }, { current: { start: 'entry_date', end: 'exit_date' } }] };

/**
 * For access rules on an organisational unit: the caller is a member of it today, as an employee
 * whose main unit it is or who holds a current membership in it.
 */
export const orgunitMember: AccessRule = {
  any: [
    { referencedBy: 'organisation/mitarbeitende', by: 'orgunit', rule: callersEmployee },
    {
      referencedBy: 'organisation/membership',
      by: 'orgunit',
      rule: { all: [{ current: { start: 'start', end: 'end' } }, { via: 'employee', rule: callersEmployee }] },
    },
  ],
};

export default [mitarbeitende, orgunit, funktionen, membership, salary, skillCategory, skill];

/** Demo data (`manage seed --demo`): Alpenblick Präzision AG, Winterthur. */
export const demo = [
  demoRows(funktionen, [
    { abbreviation: 'GF', title: 'Geschäftsführer/in', responsibility: 'Führt das Unternehmen und verantwortet das Managementsystem.' },
    { abbreviation: 'QMB', title: 'Qualitätsmanagement-Beauftragte/r', responsibility: 'Pflegt das Managementsystem und begleitet Audits.' },
    { abbreviation: 'LP', title: 'Leiter/in Produktion', responsibility: 'Plant und steuert die Fertigung.' },
    { abbreviation: 'HR', title: 'HR-Fachperson', responsibility: 'Betreut Personaladministration und Lohn.' },
  ]),
  demoRows(orgunit, [
    { title: 'Geschäftsleitung', number: '100', state: 'active', email: 'gl@alpenblick.ch', planned_fte: 2 },
    { title: 'Produktion', number: '200', parent: 'Geschäftsleitung', state: 'active', phone: '+41 52 555 12 00', planned_fte: 14 },
    { title: 'Qualität', number: '300', parent: 'Geschäftsleitung', state: 'active', planned_fte: 2 },
    { title: 'Personal', number: '400', parent: 'Geschäftsleitung', state: 'active', staff_position: true, planned_fte: 1 },
    { title: 'Verkauf Romandie', number: '500', parent: 'Geschäftsleitung', state: 'draft' },
  ]),
  demoRows(mitarbeitende, [
    { key: 'anna.keller', vorname: 'Anna', nachname: 'Keller', email: 'anna.keller@alpenblick.ch', user: 'anna.keller', orgunit: 'Qualität', employment_type: 'intern', entry_date: '2018-04-01', private_city: 'Winterthur', private_zip: '8400', private_country: 'CH' },
    { key: 'beat.meier', vorname: 'Beat', nachname: 'Meier', email: 'beat.meier@alpenblick.ch', user: 'beat.meier', orgunit: 'Geschäftsleitung', employment_type: 'intern', entry_date: '2012-01-01', private_city: 'Frauenfeld', private_zip: '8500', private_country: 'CH' },
    { key: 'claudia.brunner', vorname: 'Claudia', nachname: 'Brunner', email: 'claudia.brunner@alpenblick.ch', user: 'claudia.brunner', orgunit: 'Personal', supervisor: 'beat.meier', employment_type: 'intern', entry_date: '2020-08-15' },
    { key: 'daniel.huber', vorname: 'Daniel', nachname: 'Huber', email: 'daniel.huber@alpenblick.ch', user: 'daniel.huber', orgunit: 'Produktion', supervisor: 'beat.meier', employment_type: 'intern', entry_date: '2016-03-01' },
    { key: 'eva.schneider', vorname: 'Eva', nachname: 'Schneider', email: 'eva.schneider@alpenblick.ch', user: 'eva.schneider', orgunit: 'Qualität', supervisor: 'anna.keller', employment_type: 'intern', entry_date: '2022-02-01' },
    { key: 'reto.gerber', vorname: 'Reto', nachname: 'Gerber', email: 'reto.gerber@alpenblick.ch', user: 'reto.gerber', orgunit: 'Produktion', supervisor: 'daniel.huber', employment_type: 'intern', entry_date: '2019-09-01' },
    { key: 'sandra.frei', vorname: 'Sandra', nachname: 'Frei', email: 'sandra.frei@alpenblick.ch', user: 'sandra.frei', orgunit: 'Produktion', supervisor: 'daniel.huber', employment_type: 'extern', entry_date: '2024-05-01' },
    { key: 'marco.rossi', vorname: 'Marco', nachname: 'Rossi', user: 'marco.rossi', orgunit: 'Verkauf Romandie', employment_type: 'ehemalig', entry_date: '2015-06-01', exit_date: '2025-12-31', archived: true },
  ]),
  demoRows(membership, [
    { employee: 'beat.meier', orgunit: 'Geschäftsleitung', function: 'Geschäftsführer/in', start: '2012-01-01', degree: 100 },
    { employee: 'anna.keller', orgunit: 'Qualität', function: 'Qualitätsmanagement-Beauftragte/r', start: '2018-04-01', degree: 80 },
    { employee: 'daniel.huber', orgunit: 'Produktion', function: 'Leiter/in Produktion', start: '2016-03-01', degree: 100 },
    { employee: 'claudia.brunner', orgunit: 'Personal', function: 'HR-Fachperson', start: '2020-08-15', degree: 60 },
  ]),
  demoRows(salary, [
    { employee: 'anna.keller', valid_from: '2026-01-01', amount: '7800.00', currency: 'CHF', wage_type: 'monthly', degree: 80, weekly_hours: '33.60', vacation_days: '25.0' },
    { employee: 'reto.gerber', valid_from: '2026-01-01', amount: '6200.00', currency: 'CHF', wage_type: 'monthly', degree: 100, weekly_hours: '42.00', vacation_days: '25.0' },
  ]),
  demoRows(skillCategory, [{ title: 'Fertigung' }, { title: 'Qualitätssicherung' }]),
  demoRows(skill, [
    { title: 'CNC-Fräsen', categories: ['Fertigung'] },
    { title: 'Messtechnik', categories: ['Qualitätssicherung', 'Fertigung'] },
    { title: 'Interne Audits ISO 9001', categories: ['Qualitätssicherung'] },
  ]),
];
