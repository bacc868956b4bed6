/** Contracts module: contracts filed in folders, their partners, lookups, value flows and partner evaluations. */
import { archivedField, catalogueFields, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, visibilityField } from '../engine/declare/index.js';

const CURRENCIES = ['CHF', 'EUR', 'USD'] as const;

export const moduleLabel = defineModule({ name: 'contracts', label: 'Contracts', labelDe: 'Verträge' });

export const folder = defineResource({
  module: 'contracts',
  name: 'folder',
  title: 'Contract folder (Vertragsordner)',
  titleDe: 'Vertragsordner',
  description: 'A folder tree organising contracts; protected folders are visible to their admins, team and creator only.',
  fields: {
    title: titleField('Name of the folder.'),
    description: descriptionField('What the folder holds.'),
    visibility: visibilityField('normal: every user with the view permission; protected: admins, team members and the creator only.'),
    inherit_permissions: field.boolean({
      default: false,
      description:
        "Take visibility, admins, creator and team from the parent folder (up the tree, while folders inherit); the folder's own are then ignored.",
    }),
    archived: archivedField('Archived folders are kept but hidden from daily work.'),
  },
  relations: {
    // contracts protect their folder, so a subtree holding contracts cannot be deleted
    parent: fk('contracts/folder', { onDelete: 'cascade', tree: true, description: 'Parent folder; deleting a folder deletes its empty sub-folders.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the folder and its contracts.' }),
    members: m2m('user', { writeName: 'member_ids', description: 'Team members who see a protected folder.' }),
  },
  access: {
    inherit: { parent: 'parent', when: 'inherit_permissions' },
    view: { any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'admins' }, { userAmong: 'members' }, { userIs: 'created_by' }] },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const partner = defineResource({
  module: 'contracts',
  name: 'partner',
  title: 'Contract partner (Vertragspartner)',
  titleDe: 'Vertragspartner',
  description: 'The counterparty of contracts: an organisation or a person.',
  fields: {
    name: titleField('Name of the organisation or person.'),
    kind: field.enum({ values: ['organisation', 'person'], default: 'organisation', description: 'Whether the partner is an organisation or a person.' }),
    email: field.email({ maxLength: 254, search: true, description: 'Contact e-mail address.' }),
    phone: field.string({ maxLength: 50, allowBlank: true, description: 'Contact phone number.' }),
    website: field.url({ maxLength: 500, description: 'Website of the partner.' }),
    address: field.text({ allowBlank: true, description: 'Postal address.' }),
    description: descriptionField('Notes on the partner.'),
    archived: archivedField('Archived partners are kept but hidden from pickers.'),
  },
});

export const type = defineResource({
  module: 'contracts',
  name: 'type',
  title: 'Contract type (Vertragsart)',
  titleDe: 'Vertragsart',
  description: 'A kind of contract, e.g. service, lease or licence.',
  fields: catalogueFields({
    title: 'Name of the contract type.',
    description: 'What contracts of this type cover.',
    archived: 'Archived types are kept but hidden from pickers.',
  }),
});

export const periodicity = defineResource({
  module: 'contracts',
  name: 'periodicity',
  title: 'Payment periodicity (Zahlungsperiodizität)',
  titleDe: 'Zahlungsperiodizität',
  description: 'How often a payment recurs: monthly, quarterly, half-yearly, yearly or once.',
  fields: {
    title: titleField('Name, e.g. `quarterly`.'),
    months: field.integer({ required: true, minimum: 0, maximum: 120, description: 'Length of one period in months (1 monthly, 3 quarterly, 12 yearly); 0 = once.' }),
    description: descriptionField('Notes on the periodicity.'),
  },
});

export const contract = defineResource({
  module: 'contracts',
  name: 'contract',
  trash: true,
  title: 'Contract (Vertrag)',
  titleDe: 'Vertrag',
  description: 'A contract with a partner, its term, notice rules and value, filed in a folder.',
  attachments: true,
  fields: {
    title: titleField('Name of the contract.'),
    description: descriptionField('Subject of the contract (markdown).'),
    state: field.state({
      values: ['draft', 'active', 'cancelled', 'expired', 'archived'],
      default: 'draft',
      initial: ['draft', 'active'],
      // the status is set by editing, not by buttons, so moves are loose; no state is final
      transitions: {
        draft: ['active', 'archived'],
        active: ['draft', 'cancelled', 'expired', 'archived'],
        cancelled: ['active', 'expired', 'archived'],
        expired: ['active', 'archived'],
        archived: ['draft', 'active'],
      },
      description: 'draft, active, cancelled (gekündigt: notice given), expired, archived.',
    }),
    from_date: field.date({ description: 'First day of the contract.' }),
    to_date: field.date({ description: 'Last day of the contract; empty = open-ended.' }),
    duration: field.integer({ minimum: 0, description: 'Duration in days.' }),
    modalities: field.text({ allowBlank: true, description: 'Cancellation terms (Kündigungsmodalitäten).' }),
    period_of_notice: field.string({ maxLength: 100, allowBlank: true, description: 'Notice period (Kündigungsfrist) as text, e.g. `3 months`.' }),
    earliest_cancellation_date: field.date({ description: 'Earliest date notice can be given.' }),
    latest_cancellation_date: field.date({ description: 'Latest date notice can be given; reminders are sent before it.' }),
    payment_modalities: field.text({ allowBlank: true, description: 'Payment terms.' }),
    cashflow_type: field.enum({ values: ['in', 'out'], description: 'in: the organisation receives money; out: it pays.' }),
    amount: field.decimal({ digits: 14, decimals: 2, description: 'Contract value per payment period.' }),
    currency: field.enum({ values: CURRENCIES, default: 'CHF', description: 'Currency of the amount.' }),
    is_template: field.boolean({ default: false, description: 'Whether the contract is a template for new contracts.' }),
  },
  relations: {
    folder: fk('contracts/folder', { required: true, onDelete: 'protect', description: 'Folder the contract is filed in.' }),
    partner: fk('contracts/partner', { onDelete: 'protect', description: 'Counterparty (Vertragspartner).' }),
    type: fk('contracts/type', { onDelete: 'set null', description: 'Kind of contract.' }),
    payment_periodicity: fk('contracts/periodicity', { onDelete: 'set null', description: 'How often the amount is paid.' }),
    responsible_employee: fk('organisation/mitarbeitende', { onDelete: 'set null', description: 'Employee (Mitarbeitende) responsible for the contract.' }),
    responsible_orgunit: fk('organisation/orgunit', { onDelete: 'set null', description: 'Organisational unit responsible for the contract.' }),
    assigned_orgunits: m2m('organisation/orgunit', { writeName: 'assigned_orgunit_ids', description: 'Organisational units the contract is assigned to.' }),
  },
  access: { view: { via: 'folder', action: 'view' } },
  rules: [
    { kind: 'order', earlier: 'from_date', later: 'to_date' },
    { kind: 'order', earlier: 'earliest_cancellation_date', later: 'latest_cancellation_date' },
  ],
});

export const evaluation = defineResource({
  module: 'contracts',
  name: 'evaluation',
  title: 'Partner evaluation (Lieferantenbewertung)',
  titleDe: 'Lieferantenbewertung',
  description: 'A rating of a contract partner, e.g. a yearly supplier evaluation.',
  fields: {
    date: field.date({ required: true, description: 'Day of the evaluation.' }),
    rating: field.integer({ required: true, minimum: 1, maximum: 5, description: 'Overall rating, 1 (poor) to 5 (excellent).' }),
    quality: field.integer({ minimum: 1, maximum: 5, description: 'Quality of goods or services, 1 to 5.' }),
    reliability: field.integer({ minimum: 1, maximum: 5, description: 'Reliability and punctuality, 1 to 5.' }),
    price: field.integer({ minimum: 1, maximum: 5, description: 'Price–performance ratio, 1 to 5.' }),
    comment: field.text({ allowBlank: true, search: true, description: 'Reasons for the rating.' }),
  },
  relations: {
    partner: fk('contracts/partner', { required: true, onDelete: 'cascade', description: 'Partner evaluated.' }),
    contract: fk('contracts/contract', { onDelete: 'set null', description: 'Contract the evaluation concerns.' }),
  },
});

export const valueflow = defineResource({
  module: 'contracts',
  name: 'valueflow',
  title: 'Value flow (Wertfluss)',
  titleDe: 'Wertfluss',
  description: 'A payment stream of a contract: incoming or outgoing, once or recurring.',
  fields: {
    direction: field.enum({ values: ['in', 'out'], required: true, description: 'in: money received; out: money paid.' }),
    amount: field.decimal({ digits: 14, decimals: 2, required: true, description: 'Amount per period (or the one-off amount).' }),
    currency: field.enum({ values: CURRENCIES, default: 'CHF', description: 'Currency of the amount.' }),
    one_off: field.boolean({ default: false, description: 'Whether it is a single payment rather than a recurring one.' }),
    start_date: field.date({ description: 'Date of the first (or only) payment.' }),
    end_date: field.date({ description: 'Date of the last payment; empty while open-ended.' }),
    description: descriptionField('What the payment is for.'),
  },
  relations: {
    contract: fk('contracts/contract', { required: true, onDelete: 'cascade', description: 'Contract the value flow belongs to.' }),
    periodicity: fk('contracts/periodicity', { onDelete: 'set null', description: 'How often a recurring payment is made.' }),
  },
  access: { view: { via: 'contract', action: 'view' } },
  rules: [{ kind: 'order', earlier: 'start_date', later: 'end_date' }],
});

export default [folder, partner, type, periodicity, contract, evaluation, valueflow];

/** Demo data (`manage seed --demo`): suppliers, a lease and a maintenance contract. */
export const demo = [
  demoRows(folder, [{ title: 'Lieferanten', admins: ['beat.meier'] }, { title: 'Immobilien', admins: ['beat.meier'] }]),
  demoRows(partner, [
    { name: 'Stahl Gerlafingen AG', kind: 'organisation', email: 'verkauf@stahl-beispiel.ch', phone: '+41 32 555 11 22', address: 'Industriestrasse 1\n4563 Gerlafingen' },
    { name: 'Immobilien Töss GmbH', kind: 'organisation', address: 'Zürcherstrasse 120\n8406 Winterthur' },
    { name: 'Urs Zimmermann', kind: 'person', email: 'urs.zimmermann@example.ch' },
  ]),
  demoRows(type, [{ title: 'Liefervertrag' }, { title: 'Mietvertrag' }, { title: 'Wartungsvertrag' }]),
  demoRows(periodicity, [{ title: 'Monatlich', months: 1 }, { title: 'Jährlich', months: 12 }]),
  demoRows(contract, [
    { title: 'Rahmenvertrag Stahlrohre 2026', folder: 'Lieferanten', partner: 'Stahl Gerlafingen AG', type: 'Liefervertrag', state: 'active', from_date: '2026-01-01', to_date: '2026-12-31', cashflow_type: 'out', amount: '120000.00', currency: 'CHF', responsible_employee: 'daniel.huber', responsible_orgunit: 'Produktion' },
    { title: 'Mietvertrag Halle Grüze', folder: 'Immobilien', partner: 'Immobilien Töss GmbH', type: 'Mietvertrag', state: 'active', from_date: '2019-04-01', period_of_notice: '6 Monate auf Quartalsende', cashflow_type: 'out', amount: '8500.00', currency: 'CHF', payment_periodicity: 'Monatlich' },
    { title: 'Wartung Messmaschine', folder: 'Lieferanten', partner: 'Urs Zimmermann', type: 'Wartungsvertrag', state: 'draft', cashflow_type: 'out', amount: '2400.00', currency: 'CHF', payment_periodicity: 'Jährlich' },
  ]),
  demoRows(evaluation, [{ partner: 'Stahl Gerlafingen AG', contract: 'Rahmenvertrag Stahlrohre 2026', date: '2026-02-28', rating: 4, quality: 5, reliability: 4, price: 3, comment: 'Termintreue gut, Preise gestiegen.' }]),
  demoRows(valueflow, [
    { contract: 'Mietvertrag Halle Grüze', direction: 'out', amount: '8500.00', currency: 'CHF', periodicity: 'Monatlich', start_date: '2019-04-01' },
    { contract: 'Rahmenvertrag Stahlrohre 2026', direction: 'out', amount: '10000.00', currency: 'CHF', one_off: true, start_date: '2026-01-15', end_date: '2026-01-15' },
  ]),
];
