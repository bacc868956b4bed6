/** Organisation module: employees and the structure they work in. */
import { defineResource, field, fk } from '../engine/declare/index.js';

export const mitarbeitende = defineResource({
  module: 'organisation',
  name: 'mitarbeitende',
  table: 'organisation_mitarbeitende',
  title: 'Employee (Mitarbeitende)',
  description: 'A person employed by or working for the organisation.',
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
    archived: field.boolean({ default: false, description: 'Archived employees are kept but hidden from daily work.' }),
  },
  relations: {
    user: fk('user', { onDelete: 'set null', description: 'User account the employee signs in with.' }),
    supervisor: fk('organisation/mitarbeitende', { onDelete: 'set null', tree: true, description: 'Direct supervisor (Vorgesetzte).' }),
  },
  ordering: ['nachname', 'vorname'],
  rules: [{ kind: 'order', earlier: 'entry_date', later: 'exit_date' }],
});

export default [mitarbeitende];
