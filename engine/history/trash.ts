/**
 * The trash's restore, and the check a restore and a purge share (resource.ts serves the entries).
 * Restoring or purging an entry needs what reading it needs (the record's view permission and view
 * rule, on the record as deleted), and the record's delete permission and change rule too. A
 * restore puts the row back with its id, then each of its links whose other record still exists,
 * in one transaction, as the change capture records (a `create` entry); a key another record has
 * taken since answers 409 naming the field.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { recordedPredicate, viewsEveryState } from '../access/visibility.js';
import { setActor } from '../audit/actor.js';
import { rowsOfViewable } from '../audit/resource.js';
import { rowsOf } from '../crud/rows.js';
import type { ResourceService } from '../crud/service.js';
import { conflict, notFound, permissionDenied } from '../errors.js';
import { mayPerform } from '../http/resource-routes.js';
import { RECORD_FIELDS, type Resource } from '../registry/resource.js';
import { keyColumn, mapDatabaseError } from '../storage/db-errors.js';
import { frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import { trashed, type LinkColumn } from './trash-trigger.js';

export const TRASH_PATH = '/api/trash';

/** Who may do what with an entry, as the OpenAPI document says it. */
export const TRASH_RULES =
  "Entries are served to whom holds the record's view permission and whose view rule admits the record as deleted; restore and purge need its delete permission and its change rule too.";

/** Entries (row `e`) `user` may read: of resources they may view, whose view rule admits the record as deleted. */
export const visibleEntries = (resources: readonly Resource[], user: Principal, e: string): Fragment =>
  rowsOfViewable(resources, user, e, (r) => viewsEveryState(r, user, [frag(`${e}."row"`)]));

/** An entry as stored: the record's whole row, and every link of it (trash-trigger.ts). */
interface StoredEntry {
  record_id: number;
  row: Record<string, unknown>;
  links: (LinkColumn & { ids: number[] })[];
}

/** `rule` (compiled for the alias `kept`) on the record as the entry `e` keeps it; null when nothing restricts. */
const onKept = (r: Resource, rule: Fragment | null): Fragment | null =>
  rule && frag(`exists (select 1 from jsonb_populate_record(null::${q(r.table)}, e."row") kept where ${rule.sql})`, rule.bindings);

/**
 * The entry `id` locked in `trx` for `user` to restore or purge: 404 unseen, 403 without the delete
 * permission or the change rule. `resources`: those with a trash.
 */
export async function entryFor(trx: Knex, user: Principal, id: number, resources: readonly Resource[]): Promise<{ entry: StoredEntry; resource: Resource }> {
  const seen = joinFragments([frag('e.id = ?', [id]), ...(user.isSuperuser ? [] : [visibleEntries(resources, user, 'e')])], 'and');
  const [found] = rowsOf(await trx.raw(`select e.resource, e.record_id, e."row", e.links from trash e where ${seen.sql} for update`, seen.bindings as Knex.RawBinding[]));
  const resource = found && resources.find((r) => r.key === found.resource);
  if (!found || !resource) throw notFound();
  if (!mayPerform(user, resource.permissions.delete)) throw permissionDenied();
  const change = onKept(resource, recordedPredicate(resource, 'change', user, 'kept'));
  if (change && !rowsOf(await trx.raw(`select ${change.sql} as ok from trash e where e.id = ?`, [...change.bindings, id] as Knex.RawBinding[]))[0]!.ok) throw permissionDenied();
  return { entry: found as unknown as StoredEntry, resource };
}

export class Trash {
  private readonly resources: Resource[];

  constructor(
    private readonly db: Knex,
    private readonly services: ReadonlyMap<string, ResourceService>,
    all: readonly Resource[],
  ) {
    this.resources = trashed(all);
  }

  /** Puts the record back with its links; answers it as its resource serves it. */
  async restore(user: Principal, id: number): Promise<string> {
    let restored: { resource: Resource; id: number } | undefined;
    try {
      await this.db.transaction(async (trx) => {
        await setActor(trx, user);
        const { entry, resource } = await entryFor(trx, user, id, this.resources);
        const columns = [...RECORD_FIELDS, ...resource.fields.flatMap((f) => (f.column ? [f.column] : [])), ...resource.foreignKeys.map((fk) => fk.column)].filter((c) => c in entry.row).map(q);
        await trx.raw(`insert into ${q(resource.table)} (${columns.join(', ')}) select ${columns.join(', ')} from jsonb_populate_record(null::${q(resource.table)}, ?::jsonb)`, [JSON.stringify(entry.row)]);
        for (const l of entry.links) {
          await trx.raw(
            `insert into ${q(l.link)} (${q(l.column)}, ${q(l.other)}) select ?, x from unnest(?::int[]) x where exists (select 1 from ${q(l.target)} t where t.id = x) on conflict do nothing`,
            [entry.record_id, l.ids],
          );
        }
        await trx.raw('delete from trash where id = ?', [id]);
        restored = { resource, id: entry.record_id };
      });
    } catch (err) {
      throw restoreConflict(err) ?? mapDatabaseError(err, undefined);
    }
    return this.services.get(restored!.resource.key)!.retrieve(user, restored!.id);
  }
}

/** A key taken since the delete (23505), or a foreign key whose record is gone (23503): 409 naming the field. */
function restoreConflict(err: unknown): Error | undefined {
  const e = ((err as { nativeError?: unknown }).nativeError ?? err) as { code?: string; detail?: string };
  const field = keyColumn(e.detail);
  if (e.code === '23505') return conflict(`Cannot restore: another record already has its value of \`${field ?? 'unknown'}\`.`);
  if (e.code === '23503') return conflict(`Cannot restore: the record its field \`${field ?? 'unknown'}\` refers to no longer exists.`);
  return undefined;
}
