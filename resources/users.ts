/** Users and groups (`/api/user`, `/api/customgroup`): who signs in, and which permissions they hold. */
import { defineModule, defineResource, field, m2m } from '../engine/declare/index.js';

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
