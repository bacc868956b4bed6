/**
 * `/api/trash`: the records deleted from resources declared `trash: true` (engine/history/trash-trigger.ts).
 * Reading an entry needs the record's view permission and its view rule, judged on the record as it
 * was deleted; restoring or purging it, its delete permission and its change rule too. A restore
 * puts the row back with its id, then each of its links whose other record still exists, in one
 * transaction, as the change capture records (a `create` entry); a key another record has taken
 * since answers 409 naming the field.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { recordedPredicate, viewsEveryState } from '../access/visibility.js';
import { setActor } from '../audit/actor.js';
import { rowsOf } from '../crud/rows.js';
import type { ResourceService } from '../crud/service.js';
import { TableList } from './trash-list.js';
import { conflict, notFound, permissionDenied } from '../errors.js';
import { isoTimestamp } from '../fields/values.js';
import { mayPerform } from '../http/resource-routes.js';
import { RECORD_FIELDS, type Resource } from '../registry/resource.js';
import { keyColumn, mapDatabaseError } from '../storage/db-errors.js';
import { FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';
import { trashed, type LinkColumn } from './trash-trigger.js';

export const TRASH_PATH = '/api/trash';

const ENTRY_JSON = `json_build_object('id', e.id, 'resource', e.resource, 'record_id', e.record_id, 'deleted_at', ${isoTimestamp('e.deleted_at')},
  'deleted_by', e.deleted_by, 'request_id', e.request_id, 'values', e."row", 'links', e.links)`;

interface StoredEntry {
  id: number;
  resource: string;
  record_id: number;
  deleted_at: string;
  deleted_by: number | null;
  request_id: string | null;
  values: Record<string, unknown>;
  links: (LinkColumn & { ids: number[] })[];
}

/** An entry as served: the record's served columns, and its own relations' links by their write names. */
export type TrashEntry = Omit<StoredEntry, 'links'> & { links: Record<string, number[]> };

/** `rule` (compiled for the alias `kept`) on the record as the entry `e` keeps it; null when nothing restricts. */
const onKept = (r: Resource, rule: Fragment | null): Fragment | null =>
  rule && frag(`exists (select 1 from jsonb_populate_record(null::${q(r.table)}, e."row") kept where ${rule.sql})`, rule.bindings);

export class Trash {
  private readonly resources: Map<string, Resource>;
  readonly list: TableList;

  constructor(
    private readonly db: Knex,
    private readonly services: ReadonlyMap<string, ResourceService>,
    all: readonly Resource[],
  ) {
    this.resources = new Map(trashed(all).map((r) => [r.key, r]));
    const text = { type: 'string', maxLength: 200, description: '' } as const;
    const integer = { type: 'integer', description: '' } as const;
    this.list = new TableList(db, 'trash', ENTRY_JSON, [
      { param: 'resource', column: 'resource', type: text, op: 'exact' },
      { param: 'record_id', column: 'record_id', type: integer, op: 'exact' },
      { param: 'deleted_by', column: 'deleted_by', type: integer, op: 'exact' },
      { param: 'deleted_after', column: 'deleted_at', type: { type: 'datetime', description: '' }, op: 'from' },
    ]);
  }

  /** Entries `user` may read: of resources they may view, whose view rule admits the record as deleted. */
  visible(user: Principal): Fragment[] {
    if (user.isSuperuser) return [];
    const each = [...this.resources.values()]
      .filter((r) => mayPerform(user, r.permissions.view))
      .map((r) => joinFragments([frag('e.resource = ?', [r.key]), ...[viewsEveryState(r, user, [frag('e."row"')])].filter((p) => p !== null)], 'and'));
    return [each.length ? joinFragments(each, 'or') : FALSE];
  }

  /** The entry as served. */
  served(stored: StoredEntry): TrashEntry {
    const r = this.resources.get(stored.resource);
    if (!r) return { ...stored, values: {}, links: {} };
    const columns = new Set<string>([...RECORD_FIELDS, ...r.fields.filter((f) => f.readable && f.column).map((f) => f.column!), ...r.foreignKeys.map((fk) => fk.column)]);
    const links: Record<string, number[]> = {};
    for (const m of r.manyToMany) links[m.writeName] = stored.links.find((l) => l.link === m.spec.table && l.column === m.spec.sourceColumn)?.ids ?? [];
    return { ...stored, values: Object.fromEntries(Object.entries(stored.values).filter(([k]) => columns.has(k))), links };
  }

  /** The entry `id` locked in `trx` for `user` to restore or purge: 404 unseen, 403 without the delete permission or the change rule. */
  private async forAction(trx: Knex.Transaction, user: Principal, id: number): Promise<{ entry: StoredEntry; resource: Resource }> {
    const seen = joinFragments([frag('e.id = ?', [id]), ...this.visible(user)], 'and');
    const [found] = rowsOf(await trx.raw(`select ${ENTRY_JSON} as json, e.resource from trash e where ${seen.sql} for update`, seen.bindings as Knex.RawBinding[]));
    const resource = found && this.resources.get(found.resource as string);
    if (!found || !resource) throw notFound();
    if (!mayPerform(user, resource.permissions.delete)) throw permissionDenied();
    const change = onKept(resource, recordedPredicate(resource, 'change', user, 'kept'));
    if (change && !rowsOf(await trx.raw(`select ${change.sql} as ok from trash e where e.id = ?`, [...change.bindings, id] as Knex.RawBinding[]))[0]!.ok) throw permissionDenied();
    return { entry: found.json as StoredEntry, resource };
  }

  /** Puts the record back with its links; answers it as its resource serves it. */
  async restore(user: Principal, id: number): Promise<string> {
    let restored: { resource: Resource; id: number } | undefined;
    try {
      await this.db.transaction(async (trx) => {
        await setActor(trx);
        const { entry, resource } = await this.forAction(trx, user, id);
        const columns = [...RECORD_FIELDS, ...resource.fields.flatMap((f) => (f.column ? [f.column] : [])), ...resource.foreignKeys.map((fk) => fk.column)].filter((c) => c in entry.values).map(q);
        await trx.raw(`insert into ${q(resource.table)} (${columns.join(', ')}) select ${columns.join(', ')} from jsonb_populate_record(null::${q(resource.table)}, ?::jsonb)`, [JSON.stringify(entry.values)]);
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

  /** Deletes the entry for good. */
  async purge(user: Principal, id: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await this.forAction(trx, user, id);
      await trx.raw('delete from trash where id = ?', [id]);
    });
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
