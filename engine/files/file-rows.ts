/**
 * The database side of files: a record's file metadata read under its view rule, the record locked
 * under its change rule, a version row (`file_versions`) and the record's metadata column written
 * in the upload's transaction. Metadata is built in SQL from the version row, so what an upload
 * answers, the record shows and the versions list serves are one shape.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { notFound, permissionDenied } from '../errors.js';
import { isoTimestamp } from '../fields/values.js';
import type { Field, Resource } from '../registry/resource.js';
import { col, q } from '../storage/sql.js';

/** A file field or the attachments of one resource. */
export interface Slot {
  resource: Resource;
  field: Field;
  kind: 'file' | 'attachments';
}

/** The file fields and attachments of `resource`. */
export const slotsOf = (resource: Resource): Slot[] =>
  resource.fields.flatMap((field): Slot[] => (field.spec.type === 'file' || field.spec.type === 'attachments' ? [{ resource, field, kind: field.spec.type }] : []));

/** The webhook event an upload sends (`<module>.<resource>.file_uploaded`), beside the `updated` of its record's change. */
export const FILE_UPLOADED = 'file_uploaded';

/** What an upload or a restore records. */
export interface FileFacts {
  name: string;
  size: number;
  type: string;
  sha256: string;
}

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (result as { rows?: Row[] }).rows ?? [];
const binds = (values: unknown[]) => values as Knex.RawBinding[];

const ALIAS = 't';

/** The column's value of record `id` when `user` may see it; undefined when it does not exist or is hidden. */
export async function visibleValue(db: Knex, slot: Slot, user: Principal, id: number): Promise<unknown> {
  const { resource, field } = slot;
  const view = accessPredicate(resource, 'view', user, ALIAS);
  const rows = rowsOf(
    await db.raw(`select ${col(ALIAS, field.column!)} as v from ${q(resource.table)} ${ALIAS} where ${ALIAS}.id = ?${view ? ` and ${view.sql}` : ''}`, binds([id, ...(view?.bindings ?? [])])),
  );
  return rows.length ? (rows[0]!.v ?? null) : undefined;
}

/** Locks record `id` for the rest of `trx`: 404 when hidden or missing, 403 when seen but not changeable. */
export async function lockChangeable(trx: Knex.Transaction, resource: Resource, user: Principal, id: number): Promise<void> {
  const view = accessPredicate(resource, 'view', user, ALIAS);
  const change = accessPredicate(resource, 'change', user, ALIAS);
  const rows = rowsOf(
    await trx.raw(
      `select ${change ? change.sql : 'true'} as may from ${q(resource.table)} ${ALIAS} where ${ALIAS}.id = ?${view ? ` and ${view.sql}` : ''} for update of ${ALIAS}`,
      binds([...(change?.bindings ?? []), id, ...(view?.bindings ?? [])]),
    ),
  );
  if (!rows.length) throw notFound();
  if (rows[0]!.may !== true) throw permissionDenied();
}

/** The served metadata of a version row `v` (the download `url` given as SQL text). */
function metadataSql(slot: Slot, url: string): string {
  const common = `'name', v.name, 'size', v.size, 'type', v.media_type, 'sha256', v.sha256, 'uploaded_by', v.uploaded_by, 'uploaded_at', ${isoTimestamp('v.uploaded_at')}, 'url', ${url}`;
  return slot.kind === 'file' ? `jsonb_build_object('version', v.version, 'restored_from', v.restored_from, ${common})` : `jsonb_build_object('id', v.id, ${common})`;
}

export const recordUrl = (slot: Slot, id: number): string => `${slot.resource.path}/${id}/${slot.field.name}`;

/** Adds a version (a file field) or an attachment (numbered as versions are, unseen) for record `id`, locked by the caller, and writes the record's column; answers the metadata. */
export async function recordFile(trx: Knex.Transaction, slot: Slot, id: number, user: Principal, facts: FileFacts, restoredFrom: number | null = null): Promise<Row> {
  const { resource, field } = slot;
  const key = [resource.key, id, field.name];
  // the record's row is locked, so no other write numbers the same version
  const version = `(select coalesce(max(version), 0) + 1 from file_versions where resource = ? and record_id = ? and slot = ?)`;
  const url = slot.kind === 'file' ? '?::text' : `?::text || '/' || v.id`;
  const [row] = rowsOf(
    await trx.raw(
      `with v as (insert into file_versions (resource, record_id, slot, version, name, size, media_type, sha256, uploaded_by, restored_from) ` +
        `values (?, ?, ?, ${version}, ?, ?, ?, ?, ?, ?) returning *) select ${metadataSql(slot, url)} as m from v`,
      binds([...key, ...key, facts.name, facts.size, facts.type, facts.sha256, user.id, restoredFrom, recordUrl(slot, id)]),
    ),
  );
  const metadata = row!.m as Row;
  const column = q(field.column!);
  const value = slot.kind === 'file' ? '?::jsonb' : `${column} || jsonb_build_array(?::jsonb)`;
  await trx.raw(`update ${q(resource.table)} set ${column} = ${value}, modified = now() where id = ?`, [JSON.stringify(metadata), id]);
  return metadata;
}

/** Removes attachment `attachment` of record `id` (locked by the caller); false when it has none such. */
export async function removeAttachment(trx: Knex.Transaction, slot: Slot, id: number, attachment: number): Promise<boolean> {
  const { resource, field } = slot;
  const gone = rowsOf(
    await trx.raw(`delete from file_versions where id = ? and resource = ? and record_id = ? and slot = ? returning id`, [attachment, resource.key, id, field.name]),
  );
  if (!gone.length) return false;
  const column = q(field.column!);
  await trx.raw(
    `update ${q(resource.table)} set ${column} = (select coalesce(jsonb_agg(a order by n), '[]'::jsonb) from jsonb_array_elements(${column}) with ordinality e(a, n) where (a->>'id')::int <> ?), modified = now() where id = ?`,
    [attachment, id],
  );
  return true;
}

/** The versions of record `id`'s file, oldest first (or only version `version`), as served. */
export async function versionsOf(db: Knex, slot: Slot, id: number, version?: number): Promise<Row[]> {
  const meta = metadataSql({ ...slot, kind: 'file' }, '?::text');
  const rows = rowsOf(
    await db.raw(
      `select ${meta} - 'url' as m from file_versions v where v.resource = ? and v.record_id = ? and v.slot = ?${version === undefined ? '' : ' and v.version = ?'} order by v.version`,
      binds(['', slot.resource.key, id, slot.field.name, ...(version === undefined ? [] : [version])]),
    ),
  );
  return rows.map((r) => r.m as Row);
}
