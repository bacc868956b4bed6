/**
 * The orphan sweep: bytes are stored before the transaction that names them commits, so a crash (or
 * a failed write) between the two leaves bytes no row names. The sweep removes them, and temporary
 * blobs older than the grace period (uploads cut off). It keeps every blob that a committed row
 * names: the queries of `NAMING_QUERIES`. A record in the trash keeps its versions, so its bytes,
 * until the trash is purged.
 *
 * Safe beside uploads in flight: an upload turns its temporary blob into the named one and commits
 * its row while holding the files lock shared; the sweep decides and removes while holding it
 * exclusively, so a blob it found unnamed cannot be named meanwhile, and one an upload is about to
 * name is either not yet there when it lists or named by the time it decides.
 */
import type { Knex } from 'knex';
import type { Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';
import type { BlobStore, StoredEntry } from './blob-store.js';
import { slotsOf } from './file-rows.js';

/** The advisory lock between uploads (shared) and the sweep (exclusive); any number, the same everywhere. */
const FILES_LOCK = 0x626d7366;

/** Held by an upload's transaction from naming its bytes to its commit. */
export async function holdFilesLock(trx: Knex.Transaction): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock_shared(?)', [FILES_LOCK]);
}

/** Each query selects one column `sha256` of rows naming stored bytes. */
export const NAMING_QUERIES: string[] = ['select sha256 from file_versions'];

/** A temporary blob older than this belongs to no upload still running. */
export const DEFAULT_GRACE_MS = 60 * 60 * 1000;

export interface SweepResult {
  /** Version rows of records that no longer exist, dropped. */
  versionsDropped: number;
  blobsRemoved: number;
  tempsRemoved: number;
}


export async function sweepFiles(db: Knex, store: BlobStore, resources: readonly Resource[], graceMs = DEFAULT_GRACE_MS): Promise<SweepResult> {
  let versionsDropped = 0;
  for (const r of resources.filter((r) => slotsOf(r).length)) {
    const gone = (await db.raw(
      // a trashed record keeps its versions (and so its bytes) until the trash is purged (engine/history/)
      `delete from file_versions fv where fv.resource = ? and not exists (select 1 from ${q(r.table)} t where t.id = fv.record_id)
         and not exists (select 1 from trash tr where tr.resource = fv.resource and tr.record_id = fv.record_id) returning fv.id`,
      [r.key],
    )) as { rows: unknown[] };
    versionsDropped += gone.rows.length;
  }
  const oldest = Date.now() - graceMs;
  const blobs: Extract<StoredEntry, { kind: 'blob' }>[] = [];
  let tempsRemoved = 0;
  for await (const entry of store.list()) {
    if (entry.kind === 'blob') blobs.push(entry);
    else if (entry.modified.getTime() < oldest) {
      await store.remove(entry);
      tempsRemoved++;
    }
  }
  const blobsRemoved = await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [FILES_LOCK]);
    if (!blobs.length) return 0;
    const named = (await trx.raw(`select distinct n.sha256 from (${NAMING_QUERIES.join(' union all ')}) n where n.sha256 = any(?::text[])`, [
      `{${blobs.map((b) => b.sha256).join(',')}}`,
    ])) as { rows: { sha256: string }[] };
    const keep = new Set(named.rows.map((r) => r.sha256));
    const orphans = blobs.filter((b) => !keep.has(b.sha256));
    for (const orphan of orphans) await store.remove(orphan);
    return orphans.length;
  });
  return { versionsDropped, blobsRemoved, tempsRemoved };
}
