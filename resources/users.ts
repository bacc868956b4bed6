/** Users and groups (`/api/user`, `/api/customgroup`): who signs in, and which permissions they hold. */
import { defineModule, defineResource, demoRows, field, m2m } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'users', label: 'Users and groups', labelDe: 'Benutzer und Gruppen' });

export const user = defineResource({
  module: 'users',
  name: 'user',
  path: '/api/user',
  table: 'users',
  title: 'User',
  titleDe: 'Benutzer',
  description: 'A person who signs in. Permissions come from groups; superusers hold all.',
  // credentials and permissions stay out of an agent's reach
  mcp: false,
  fields: {
    username: field.string({ maxLength: 150, required: true, unique: true, filter: true, search: true, description: 'Unique sign-in name.' }),
    email: field.email({ maxLength: 254, search: true, description: 'E-mail address.' }),
    first_name: field.string({ maxLength: 150, allowBlank: true, search: true, description: 'Given name.' }),
    last_name: field.string({ maxLength: 150, allowBlank: true, search: true, description: 'Family name.' }),
    is_active: field.boolean({ default: true, description: 'Inactive users cannot sign in; their tokens and sessions stop working.' }),
    is_superuser: field.boolean({ default: false, superuserOnly: true, description: 'Holds every permission and sees every record; only superusers set it.' }),
    password: field.password({ minLength: 8, description: 'Write-only; at least 8 characters; stored as a scrypt hash.' }),
    last_login: field.datetime({ readOnly: true, bookkeeping: true, description: 'Time of the last successful sign-in.' }),
  },
  relations: {
    groups: m2m('customgroup', {
      writeName: 'group_ids',
      targetColumn: 'group_id',
      privileged: true,
      description: 'Groups the user belongs to. Only a caller holding everything a group grants (its permissions and the records it opens, e.g. as a tracker team) may add or remove it.',
    }),
  },
});

export const customgroup = defineResource({
  module: 'users',
  name: 'customgroup',
  path: '/api/customgroup',
  table: 'groups',
  title: 'Group',
  titleDe: 'Gruppe',
  description: 'A group of users; its permissions are granted to every member.',
  mcp: false,
  fields: {
    name: field.string({ maxLength: 150, required: true, unique: true, filter: true, search: true, description: 'Unique group name.' }),
    permissions: field.permissions({ description: 'Permission names (`app.action_model`) granted to the members.' }),
  },
  relations: {
    // the other side of a user's `groups`: the same join table, read from the group's column
    users: m2m('user', {
      writeName: 'user_ids',
      table: 'users_groups',
      sourceColumn: 'group_id',
      privileged: true,
      description: 'Members of the group. Only a caller holding everything a user holds (permissions, superuser status, records they see or change) may add or remove that user.',
    }),
  },
});

export default [user, customgroup];

/** Demo data (`manage seed --demo`): the company's people and their groups. They have no password: set one to sign in as them. */
export const demo = [
  demoRows(customgroup, [
    { name: 'Qualitätsmanagement', permissions: ['issues.view_tracker', 'issues.view_issue', 'issues.add_issue', 'issues.change_issue', 'dms.view_document', 'process.view_process'] },
    { name: 'Mitarbeitende', permissions: ['issues.view_issue', 'issues.add_issue', 'glossar.view_entry', 'stream.view_messages', 'stream.view_event'] },
    { name: 'Personalabteilung', permissions: ['organisation.view_mitarbeitende', 'organisation.change_mitarbeitende', 'organisation.view_orgunit', 'timetracker.view_absence', 'timetracker.change_absence'] },
    { name: 'Projektleitung', permissions: ['projects.view_project', 'projects.change_project', 'projects.view_task', 'projects.add_task', 'projects.change_task'] },
  ]),
  demoRows(user, [
    { username: 'anna.keller', first_name: 'Anna', last_name: 'Keller', email: 'anna.keller@alpenblick.ch', groups: ['Qualitätsmanagement', 'Mitarbeitende'] },
    { username: 'beat.meier', first_name: 'Beat', last_name: 'Meier', email: 'beat.meier@alpenblick.ch', groups: ['Mitarbeitende', 'Projektleitung'] },
    { username: 'claudia.brunner', first_name: 'Claudia', last_name: 'Brunner', email: 'claudia.brunner@alpenblick.ch', groups: ['Personalabteilung', 'Mitarbeitende'] },
    { username: 'daniel.huber', first_name: 'Daniel', last_name: 'Huber', email: 'daniel.huber@alpenblick.ch', groups: ['Mitarbeitende'] },
    { username: 'eva.schneider', first_name: 'Eva', last_name: 'Schneider', email: 'eva.schneider@alpenblick.ch', groups: ['Mitarbeitende', 'Qualitätsmanagement'] },
    { username: 'reto.gerber', first_name: 'Reto', last_name: 'Gerber', email: 'reto.gerber@alpenblick.ch', groups: ['Mitarbeitende'] },
    { username: 'sandra.frei', first_name: 'Sandra', last_name: 'Frei', email: 'sandra.frei@alpenblick.ch', groups: ['Mitarbeitende', 'Projektleitung'] },
    { username: 'marco.rossi', first_name: 'Marco', last_name: 'Rossi', email: 'marco.rossi@alpenblick.ch', is_active: false, groups: ['Mitarbeitende'] },
  ]),
];
