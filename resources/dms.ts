/** DMS module (document management): a folder tree, document types, and documents with an approval workflow. */
import { archivedField, catalogueFields, defineBatch, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, visibilityField } from '../engine/declare/index.js';
import { orgunitMember } from './organisation.js';

export const moduleLabel = defineModule({ name: 'dms', label: 'Documents', labelDe: 'Dokumente' });

export const folder = defineResource({
  module: 'dms',
  name: 'folder',
  trash: true,
  title: 'Folder (Ordner)',
  titleDe: 'Ordner',
  description:
    'A folder of the document tree; it carries default roles for its documents and decides who sees them. ' +
    'Changing or deleting a folder needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the folder.'),
    description: descriptionField('What the folder holds (markdown).'),
    visibility: visibilityField('normal: everyone with the view permission; protected: its admins, its creator, its team members and the current members of its org units only.'),
    inherit_permissions: field.boolean({
      default: false,
      description:
        "Take visibility, admins, creator, team and org units from the parent folder (up the tree, while folders inherit); the folder's own are then ignored.",
    }),
    archived: archivedField('Archived folders are kept but hidden from daily work.'),
  },
  relations: {
    // cascade: subfolders go with their folder; documents in them are protected, which blocks the delete
    parent: fk('dms/folder', { onDelete: 'cascade', tree: true, description: 'Parent folder; null for a root folder.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Default responsible function (Funktion) for the folder's documents." }),
    reviewing_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Default reviewing function for the folder's documents." }),
    approving_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Default approving function for the folder's documents." }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the folder: they see it and change it and the documents in it.' }),
    team_members: m2m('user', { writeName: 'team_member_ids', description: 'Users of the folder team; they see a protected folder.' }),
    orgunits: m2m('organisation/orgunit', {
      writeName: 'orgunit_ids',
      description: 'Organisational units whose current members (main unit or current membership) see a protected folder.',
    }),
  },
  access: {
    inherit: { parent: 'parent', when: 'inherit_permissions' },
    view: {
      any: [
        { field: 'visibility', in: ['normal'] },
        { userAmong: 'admins' },
        { userIs: 'created_by' },
        { userAmong: 'team_members' },
        { among: 'orgunits', rule: orgunitMember },
      ],
    },
    // the creator stays an admin, as for contract folders and team spaces
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const documenttype = defineResource({
  module: 'dms',
  name: 'documenttype',
  title: 'Document type (Dokumenttyp)',
  titleDe: 'Dokumenttyp',
  description: 'A kind of document, e.g. work instruction or form, used to classify and filter documents.',
  fields: catalogueFields({
    title: 'Name of the document type.',
    description: 'What documents of this type are (markdown).',
    archived: 'Archived types are kept but no longer offered for selection.',
  }),
});

export const document = defineResource({
  module: 'dms',
  name: 'document',
  trash: true,
  title: 'Document (Dokument)',
  titleDe: 'Dokument',
  description:
    'A managed document in a folder, moving through the review and approval workflow. Visible to who sees its folder; ' +
    "in a protected folder, changed only by the folder's admins and creator and the document's owner and creator.",
  fields: {
    code: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Document ID, e.g. `AA-001`.' }),
    title: titleField('Title of the document.'),
    description: descriptionField('Summary of the document (markdown).'),
    revision: field.integer({ minimum: 0, description: 'Revision number; raised with each approval.' }),
    state: field.state({
      values: ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived'],
      default: 'draft',
      // importers bring in documents that are approved already
      initial: ['draft', 'approved'],
      transitions: {
        draft: ['review'],
        review: ['reviewed', 'draft'],
        reviewed: ['approved', 'draft'],
        approved: ['expired', 'archived', 'draft'],
        expired: ['approved', 'archived', 'draft'],
        archived: ['draft'],
      },
      description: 'Approval workflow: draft (Entwurf), review (Zur Prüfung), reviewed (Geprüft), approved (Freigegeben), expired (Abgelaufen), archived (Archiviert).',
    }),
    valid_from: field.date({ description: 'First day the document applies.' }),
    valid_to: field.date({ description: 'Last day the document applies; after it the document expires.' }),
    next_review: field.date({ description: 'Date of the next periodic review (reminder only; does not change the state).' }),
    review_periodicity: field.enum({
      values: ['monthly', 'quarterly', 'half_yearly', 'yearly', 'every_2_years', 'custom'],
      description: 'How often the document is reviewed.',
    }),
    external_url: field.url({ maxLength: 2000, description: 'Link to the document in an external system.' }),
    retention_years: field.integer({ minimum: 0, maximum: 100, description: 'Retention period in years.' }),
    archived: archivedField('Archived documents are kept but hidden from daily work.'),
    file: field.file({ description: 'The document itself (optional): uploaded with PUT `…/file`, every upload a new version.' }),
  },
  relations: {
    // protect: deleting a folder must not silently delete its documents
    folder: fk('dms/folder', { required: true, onDelete: 'protect', description: 'Folder the document is filed in.' }),
    documenttype: fk('dms/documenttype', { onDelete: 'set null', description: 'Type of the document.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User who owns the document.' }),
    author: fk('organisation/mitarbeitende', { onDelete: 'set null', description: 'Employee who wrote the document.' }),
    responsible_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Responsible function (Funktion); the folder's when empty." }),
    reviewing_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Reviewing function; the folder's when empty." }),
    approving_function: fk('organisation/funktionen', { onDelete: 'set null', description: "Approving function; the folder's when empty." }),
    working_copy_of: fk('dms/document', { onDelete: 'set null', description: 'Approved document this draft is a working copy of.' }),
    processes: m2m('process/process', { writeName: 'process_ids', description: 'Processes the document belongs to.' }),
    related_documents: m2m('dms/document', {
      writeName: 'related_document_ids',
      targetColumn: 'related_document_id',
      description: 'Documents that also apply (mitgeltende Dokumente).',
    }),
  },
  access: {
    view: { via: 'folder', action: 'view' },
    change: {
      any: [
        { via: 'folder', rule: { field: 'visibility', in: ['normal'] } },
        { via: 'folder', action: 'change' },
        { userIs: 'owner' },
        { userIs: 'created_by' },
      ],
    },
  },
  rules: [{ kind: 'order', earlier: 'valid_from', later: 'valid_to' }],
  events: ['review_due'],
  schedules: [
    {
      name: 'expire',
      cron: '5 0 * * *',
      description: 'Daily: approved documents whose valid_to is before today move to expired (state log, audit and webhooks as any change).',
      run: async ({ trx, today, records }) => {
        const due = (await trx('dms_document').where({ state: 'approved' }).where('valid_to', '<', today).orderBy('id').pluck('id')) as number[];
        for (const id of due) await records('dms/document').update(id, { state: 'expired' });
      },
    },
    {
      name: 'review_due',
      cron: '0 6 * * 1',
      description: 'Weekly (Mondays): the event dms.document.review_due for each document not archived whose next_review is within 7 days or past.',
      run: async ({ trx, today, emit }) => {
        const due = (await trx('dms_document')
          .whereNot({ state: 'archived' })
          .where({ archived: false })
          .whereRaw(`next_review <= ?::date + 7`, [today])
          .orderBy('id')
          .pluck('id')) as number[];
        await emit('dms/document', 'review_due', due);
      },
    },
  ],
});

export default [folder, documenttype, document];

/** CONTRACT 10: moving, archiving and deleting many documents at once, all or nothing. */
export const batches = [
  defineBatch({
    module: 'dms',
    name: 'batch_move',
    resource: 'dms/document',
    operation: { kind: 'setForeignKey', relation: 'folder' },
    permission: 'change',
    resultKey: 'moved',
    description: 'Moves the documents into the folder `folder_id`.',
  }),
  defineBatch({
    module: 'dms',
    name: 'batch_archive',
    resource: 'dms/document',
    operation: { kind: 'set', values: { archived: true } },
    permission: 'change',
    resultKey: 'archived',
    description: 'Archives the documents.',
  }),
  defineBatch({
    module: 'dms',
    name: 'batch_delete',
    resource: 'dms/document',
    operation: { kind: 'delete' },
    permission: 'delete',
    resultKey: 'deleted',
    description: 'Deletes the documents.',
  }),
];

/** Demo data (`manage seed --demo`): the management handbook. */
export const demo = [
  demoRows(folder, [
    { title: 'Managementhandbuch', visibility: 'normal', admins: ['anna.keller'], responsible_function: 'Qualitätsmanagement-Beauftragte/r' },
    { title: 'Arbeitsanweisungen', parent: 'Managementhandbuch', inherit_permissions: true },
    { title: 'Personalreglemente', visibility: 'protected', admins: ['claudia.brunner'], orgunits: ['Personal'] },
  ]),
  demoRows(documenttype, [{ title: 'Richtlinie' }, { title: 'Arbeitsanweisung' }, { title: 'Formular' }]),
  demoRows(document, [
    { code: 'RL-001', title: 'Qualitätspolitik', folder: 'Managementhandbuch', documenttype: 'Richtlinie', state: 'approved', revision: 3, owner: 'beat.meier', valid_from: '2026-01-01', review_periodicity: 'yearly', processes: ['Unternehmen führen'] },
    { code: 'AA-014', title: 'Wareneingangskontrolle', folder: 'Arbeitsanweisungen', documenttype: 'Arbeitsanweisung', state: 'review', revision: 2, owner: 'eva.schneider', processes: ['Wareneingang prüfen'] },
    { code: 'AA-015', title: 'Reinigung CNC-Fräse', folder: 'Arbeitsanweisungen', documenttype: 'Arbeitsanweisung', state: 'draft', owner: 'reto.gerber' },
    { code: 'PR-002', title: 'Spesenreglement', folder: 'Personalreglemente', documenttype: 'Richtlinie', state: 'approved', owner: 'claudia.brunner', retention_years: 10 },
  ]),
];
