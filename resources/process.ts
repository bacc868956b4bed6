/** Process module (Prozesse): documented processes and their building blocks. */
import { defineResource, field, fk } from '../engine/declare/index.js';

export const process = defineResource({
  module: 'process',
  name: 'process',
  table: 'process_process',
  title: 'Process (Prozess)',
  description: 'A documented business process, organised as a tree.',
  fields: {
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Process number, e.g. `2.1`.' }),
    title: field.string({ maxLength: 255, required: true, filter: true, search: true, description: 'Name of the process.' }),
    description: field.text({ allowBlank: true, search: true, description: 'What the process achieves (markdown).' }),
    state: field.state({
      values: ['draft', 'review', 'reviewed', 'approved', 'expired', 'archived'],
      default: 'draft',
      initial: ['draft'],
      transitions: {
        draft: ['review'],
        review: ['reviewed', 'draft'],
        reviewed: ['approved', 'draft'],
        approved: ['expired', 'archived', 'draft'],
        expired: ['approved', 'archived', 'draft'],
        archived: ['draft'],
      },
      description: 'Approval workflow: draft, review, reviewed, approved, expired, archived.',
    }),
    valid_from: field.date({ description: 'First day the process applies.' }),
    valid_to: field.date({ description: 'Last day the process applies.' }),
    archived: field.boolean({ default: false, description: 'Archived processes are kept but hidden from daily work.' }),
  },
  relations: {
    parent: fk('process/process', { onDelete: 'cascade', tree: true, description: 'Parent process; deleting a process deletes its sub-processes.' }),
    owner: fk('user', { onDelete: 'set null', description: 'User who owns the process.' }),
  },
  rules: [{ kind: 'order', earlier: 'valid_from', later: 'valid_to' }],
});

export default [process];
