/**
 * Each audit entry of a resource with a view rule keeps the record's values as the entry leaves
 * them (for a delete, as they were): `audit_entries.snapshot` (engine/audit/capture-function.ts), so
 * `/api/audit` shows an entry only to callers whose view rule admits the record as it was then, not
 * only as it is now. Entries written before have none and are shown to superusers only (where the
 * resource has a view rule): their past values cannot all be known.
 */
import type { Knex } from 'knex';
import { captureFunction } from '../engine/audit/capture-function.js';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table audit_entries add column snapshot jsonb');
  await knex.raw(captureFunction(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(captureFunction(false));
  await knex.raw('alter table audit_entries drop column snapshot');
}
