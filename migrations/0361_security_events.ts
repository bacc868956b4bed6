/** Security events the database records whatever path writes users (engine/audit/security-events.ts). */
import type { Knex } from 'knex';
import { SECURITY_EVENTS_DOWN_SQL, SECURITY_EVENTS_SQL } from '../engine/audit/security-events.js';

export async function up(knex: Knex): Promise<void> {
  for (const sql of SECURITY_EVENTS_SQL) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  for (const sql of SECURITY_EVENTS_DOWN_SQL) await knex.raw(sql);
}
