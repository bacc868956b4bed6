/**
 * Every declared resource's table carries the change-capture trigger (`bms_capture`, calling the
 * table's own function, engine/audit/capture-function.ts), its arguments taken from the
 * declaration: the resource key, its event prefix, its state column, the columns recorded (served
 * ones only, so a password, hash or secret never is; and no bookkeeping, so an update of only
 * `last_login` records and sends nothing) and, for a resource with a view rule, the columns kept
 * whole with each entry: the served ones, `id` and `created_by`, so every column a rule reads of
 * the row (access-check.ts refuses rules on fields never served), and `/api/audit` judges each
 * entry by the values it recorded (viewsEveryState, engine/access/visibility.ts). Kept in step on
 * every migrate: a trigger whose arguments differ from the declaration's, or a function whose
 * columns do, is replaced, so a new resource or field needs no migration of its own for it.
 */
import type { Knex } from 'knex';
import { PRINCIPALS, type Resource } from '../registry/resource.js';
import { keepTriggerInStep } from '../storage/declared-triggers.js';
import { captureBody, type LinkedSet } from './capture-function.js';

/** `issue.issue`: the first two parts of the resource's webhook event names. */
export const eventPrefix = (r: Resource): string => `${r.module}.${r.name}`;

/** The columns the capture records of `r` (an event's data, by the trigger and by scheduled events alike), and those it keeps whole with each entry (none without a view rule). */
export function capturedColumns(r: Resource): { recorded: string[]; kept: string[] } {
  const columns = (served: (f: Resource['fields'][number]) => boolean) => [...r.fields.filter((f) => f.column && served(f)).map((f) => f.column!), ...r.foreignKeys.map((fk) => fk.column), 'remote_key'];
  // a rule may read any served column, bookkeeping ones too
  return { recorded: columns((f) => f.recorded), kept: r.access.view ? [...columns((f) => f.readable), 'id', 'created_by'] : [] };
}

/** One relation stored in a link table, from the record's side: what its capture, its entry and its events need. */
export interface LinkSide extends LinkedSet {
  resource: string;
  table: string;
  prefix: string;
  recorded: string[];
  kept: string[];
  /** A change of it is a security event of this action too (a user's groups: a grant of power). */
  security?: string;
}

/** `r`'s relations stored in link tables (engine/audit/link-capture.ts). */
export function sidesOf(r: Resource): LinkSide[] {
  const { recorded, kept } = capturedColumns(r);
  return r.manyToMany.map((m) => {
    const grants = r.key === PRINCIPALS.user && m.target.key === PRINCIPALS.group;
    return { resource: r.key, name: m.writeName, link: m.spec.table, column: m.spec.sourceColumn, target: m.spec.targetColumn, table: r.table, prefix: eventPrefix(r), recorded, kept, ...(grants ? { security: 'groups_changed' } : {}) };
  });
}

/** The trigger's arguments for `r`. */
function argumentsOf(r: Resource): string[] {
  const state = r.fields.find((f) => f.spec.type === 'state')?.column ?? '';
  const { recorded, kept } = capturedColumns(r);
  return [r.key, eventPrefix(r), state, `{${recorded.join(',')}}`, `{${kept.join(',')}}`];
}

export async function syncCaptureTriggers(db: Knex, resources: readonly Resource[]): Promise<void> {
  const byTable = new Map(resources.map((r) => [r.table, r]));
  const wanted = new Map(resources.map((r) => [r.table, argumentsOf(r)]));
  // each table's own function, its columns written out: those of the table (as the generic one skips a column the row lacks)
  const functions = (table: string, columns: ReadonlySet<string>) => {
    const r = byTable.get(table)!;
    const { recorded, kept } = capturedColumns(r);
    // a create's own links, but a security event's, which the flush writes
    const links = sidesOf(r).filter((side) => !side.security);
    return captureBody(true, true, { recorded: recorded.filter((c) => columns.has(c)), kept: kept.filter((c) => columns.has(c)), links });
  };
  await keepTriggerInStep(db, { name: 'bms_capture', when: 'after insert or update or delete', call: 'bms_capture', wanted, functions });
}
