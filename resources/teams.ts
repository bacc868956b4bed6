/** Teams module: spaces with kanban boards (lists, cards, labels) and meetings with agenda items. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'teams', label: 'Teams', labelDe: 'Teams' });

export const space = defineResource({
  module: 'teams',
  name: 'space',
  title: 'Space',
  description: 'A team workspace holding boards and meetings; protected spaces are visible to their members and admins only.',
  fields: {
    title: titleField('Name of the space.'),
    description: descriptionField('Purpose of the space (markdown).'),
    visibility: field.enum({
      values: ['public', 'protected'],
      default: 'protected',
      description: 'public: every user with the view permission; protected: members, admins and the creator only.',
    }),
    archived: archivedField('Archived spaces are read-only and hidden from daily work.'),
  },
  relations: {
    members: m2m('user', { writeName: 'member_ids', description: 'Team members of the space.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the space.' }),
  },
  access: {
    view: { any: [{ field: 'visibility', in: ['public'] }, { userAmong: 'members' }, { userAmong: 'admins' }, { userIs: 'created_by' }] },
    // the creator is the owner, who stays an admin
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const board = defineResource({
  module: 'teams',
  name: 'board',
  title: 'Board',
  description: 'A kanban or list board inside a space, made of lists of cards.',
  fields: {
    title: titleField('Name of the board.'),
    description: descriptionField('Purpose of the board (markdown).'),
    display_mode: field.enum({ values: ['kanban', 'list'], default: 'kanban', description: 'How the board is shown: kanban columns or one list.' }),
    status: field.enum({
      values: ['in_progress', 'done', 'template'],
      default: 'in_progress',
      description: 'in_progress: in use; done: finished; template: a blueprint for new boards.',
    }),
    inherit_permissions: field.boolean({
      default: true,
      description: 'Kept for imports only: a board has no team of its own and is always visible to who sees its space, whatever this says.',
    }),
    archived: archivedField('Archived boards are kept but hidden from daily work.'),
  },
  relations: {
    space: fk('teams/space', { required: true, onDelete: 'cascade', description: 'Space the board belongs to; deleting the space deletes its boards.' }),
    process: fk('process/process', { onDelete: 'set null', description: 'Process the board works on.' }),
    issue: fk('issue/issue', { onDelete: 'set null', description: 'Issue the board works on.' }),
    project: fk('projects/project', { onDelete: 'set null', description: 'Project the board works on.' }),
  },
  access: { view: { via: 'space', action: 'view' } },
});

export const list = defineResource({
  module: 'teams',
  name: 'list',
  title: 'List',
  description: 'A column of a board; moving a card into it sets the card to the target state.',
  fields: {
    title: titleField('Name of the list, e.g. `Doing`.'),
    target_state: field.enum({
      values: ['new', 'selected', 'doing', 'wait', 'done', 'cancelled'],
      default: 'new',
      description: 'State a card takes when moved into this list.',
    }),
    archive_incoming_cards: field.boolean({ default: false, description: 'Whether cards moved into this list are archived.' }),
    position: positionField('Position of the list on its board, ascending from the left.'),
    archived: archivedField('Archived lists are kept but hidden from the board.'),
  },
  relations: {
    board: fk('teams/board', { required: true, onDelete: 'cascade', description: 'Board the list belongs to; deleting the board deletes its lists.' }),
  },
  ordering: ['position'],
  access: { view: { via: 'board', action: 'view' } },
});

export const label = defineResource({
  module: 'teams',
  name: 'label',
  title: 'Label',
  description: 'A coloured tag for the cards of one board; `Scope:Value` titles are scoped labels.',
  fields: {
    title: titleField('Label text; `Scope:Value` for a scoped label.'),
    color: field.color({ description: 'UI colour class: a base name, optionally one space and a modifier (`blue lighten-2`).' }),
    description: descriptionField('What the label means.'),
  },
  relations: {
    board: fk('teams/board', { required: true, onDelete: 'cascade', description: 'Board the label belongs to.' }),
  },
  access: { view: { via: 'board', action: 'view' } },
});

export const card = defineResource({
  module: 'teams',
  name: 'card',
  title: 'Card',
  description: 'A unit of work in a list of a board, moving from new to done.',
  fields: {
    title: titleField('Short summary of the work.'),
    description: descriptionField('Details of the work (markdown).'),
    state: field.state({
      values: ['draft', 'new', 'selected', 'doing', 'wait', 'done', 'cancelled', 'template'],
      default: 'new',
      initial: ['draft', 'new', 'template'],
      // kanban cards move back and forth between lists; only templates are fixed
      transitions: {
        draft: ['new', 'cancelled'],
        new: ['selected', 'doing', 'cancelled'],
        selected: ['new', 'doing', 'cancelled'],
        doing: ['selected', 'wait', 'done', 'cancelled'],
        wait: ['doing', 'done', 'cancelled'],
        done: ['doing'],
        cancelled: ['new'],
      },
      description: 'Workflow state: draft, new, selected (neu/selektiert), doing, wait, done, cancelled; template cards are blueprints.',
    }),
    deadline: field.date({ description: 'Date the card is due.' }),
    external_url: field.url({ maxLength: 500, description: 'Link to an external reference.' }),
    position: positionField('Position of the card in its list, ascending from the top.'),
    archived: archivedField('Archived cards are kept but hidden from the board.'),
  },
  relations: {
    // cascade: deleting a space must be able to remove everything below it
    list: fk('teams/list', { required: true, onDelete: 'cascade', description: 'List the card is in.' }),
    assignees: m2m('user', { writeName: 'assignee_ids', description: 'Users working on the card.' }),
    labels: m2m('teams/label', { writeName: 'label_ids', description: "Labels of the card (labels of the card's board)." }),
  },
  ordering: ['position'],
  access: { view: { via: 'list', action: 'view' } },
});

export const meeting = defineResource({
  module: 'teams',
  name: 'meeting',
  title: 'Meeting (Sitzung)',
  titleDe: 'Sitzung',
  description: 'A meeting of a space with an agenda of items; items are fixed once it is closed.',
  fields: {
    title: titleField('Name of the meeting.'),
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Meeting number, e.g. `2026-07`.' }),
    description: descriptionField('Purpose and notes of the meeting (markdown).'),
    start: field.datetime({ required: true, description: 'When the meeting starts.' }),
    end: field.datetime({ description: 'When the meeting ends.' }),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Room, address or call link.' }),
    guests: field.text({ allowBlank: true, description: 'Participants without a user account (free text).' }),
    status: field.state({
      values: ['planned', 'prepared', 'closed', 'template'],
      default: 'planned',
      initial: ['planned', 'template'],
      transitions: { planned: ['prepared', 'closed'], prepared: ['planned', 'closed'] },
      description: 'planned, prepared, closed (final: items can no longer change); template meetings are blueprints.',
    }),
  },
  relations: {
    space: fk('teams/space', { required: true, onDelete: 'cascade', description: 'Space the meeting belongs to.' }),
    participants: m2m('user', { writeName: 'participant_ids', description: 'Users taking part in the meeting.' }),
  },
  access: { view: { via: 'space', action: 'view' } },
  rules: [{ kind: 'order', earlier: 'start', later: 'end' }],
});

export const meetingitem = defineResource({
  module: 'teams',
  name: 'meetingitem',
  title: 'Meeting item (Traktandum)',
  titleDe: 'Traktandum',
  description: 'An agenda item of a meeting with its discussion result and decision; items can have sub-items.',
  fields: {
    title: titleField('Topic of the item.'),
    number: field.string({ maxLength: 50, allowBlank: true, description: 'Item number, e.g. `2.1`.' }),
    text: field.text({ allowBlank: true, search: true, description: 'What is to be discussed (markdown).' }),
    result: field.text({ allowBlank: true, search: true, description: 'Outcome of the discussion (markdown).' }),
    decision: field.text({ allowBlank: true, search: true, description: 'Decision taken (Beschluss), if any.' }),
    list_order: positionField('Position on the agenda, ascending.'),
  },
  relations: {
    meeting: fk('teams/meeting', { required: true, onDelete: 'cascade', description: 'Meeting the item is on.' }),
    parent: fk('teams/meetingitem', { onDelete: 'cascade', tree: true, description: 'Parent item; deleting an item deletes its sub-items.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User responsible for the item.' }),
    contributors: m2m('user', { writeName: 'contributor_ids', description: 'Users contributing to the item.' }),
    cards: m2m('teams/card', { writeName: 'card_ids', description: 'Cards the item discusses or creates.' }),
  },
  ordering: ['list_order'],
  access: { view: { via: 'meeting', action: 'view' } },
});

export default [space, board, list, label, card, meeting, meetingitem];

/** Demo data (`manage seed --demo`): the quality team's space, a kanban board and a meeting. */
export const demo = [
  demoRows(space, [
    { title: 'Qualitätsteam', visibility: 'protected', members: ['anna.keller', 'eva.schneider', 'reto.gerber'], admins: ['anna.keller'] },
    { title: 'Geschäftsleitung', visibility: 'protected', members: ['beat.meier', 'daniel.huber'], admins: ['beat.meier'] },
  ]),
  demoRows(board, [{ title: 'Massnahmen Q2', space: 'Qualitätsteam', display_mode: 'kanban', status: 'in_progress', project: 'Einführung ISO 9001:2015' }]),
  demoRows(list, [
    { title: 'Offen', board: 'Massnahmen Q2', target_state: 'new', position: 1 },
    { title: 'In Arbeit', board: 'Massnahmen Q2', target_state: 'doing', position: 2 },
    { title: 'Erledigt', board: 'Massnahmen Q2', target_state: 'done', position: 3 },
  ]),
  demoRows(label, [
    { title: 'Audit', color: 'purple', board: 'Massnahmen Q2' },
    { title: 'Dringend', color: 'red', board: 'Massnahmen Q2' },
  ]),
  demoRows(card, [
    { title: 'Prüfmittelliste aktualisieren', list: 'Offen', state: 'new', labels: ['Audit'], assignees: ['eva.schneider'], position: 1 },
    { title: 'Schulung Dokumentenlenkung', list: 'In Arbeit', state: 'doing', assignees: ['anna.keller'], deadline: '2026-04-30', position: 1 },
    { title: 'Kalibrierung Messschieber', list: 'Erledigt', state: 'done', labels: ['Dringend'], assignees: ['reto.gerber'], position: 1 },
  ]),
  demoRows(meeting, [{ title: 'Qualitätszirkel März', number: 'QZ-2026-03', space: 'Qualitätsteam', start: '2026-03-18T08:00:00.000Z', end: '2026-03-18T09:30:00.000Z', location: 'Sitzungszimmer Säntis', status: 'prepared', participants: ['anna.keller', 'eva.schneider', 'reto.gerber'] }]),
  demoRows(meetingitem, [
    { title: 'Offene Meldungen', number: '1', meeting: 'Qualitätszirkel März', owner: 'anna.keller', list_order: 1, cards: ['Prüfmittelliste aktualisieren'] },
    { title: 'Kundenaudit vorbereiten', number: '2', meeting: 'Qualitätszirkel März', owner: 'eva.schneider', list_order: 2, decision: 'Audit findet am 22. April statt.' },
  ]),
];
