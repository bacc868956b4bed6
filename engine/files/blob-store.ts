/**
 * Where file bytes live, named by their SHA-256 (content-addressed: the same bytes are stored
 * once). An upload streams into a temporary blob, which `promote` turns into the named blob while
 * the upload's transaction holds the files lock (sweep.ts), so the sweep never removes bytes that a
 * transaction is about to name. Two backends: local disk and S3 (FILE_STORAGE).
 */
import type { Readable } from 'node:stream';

/** Bytes written but not yet named: the upload's own. */
export interface TempBlob {
  readonly key: string;
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What the sweep finds in a store. */
export type StoredEntry = { kind: 'blob'; sha256: string; modified: Date } | { kind: 'temp'; key: string; modified: Date };

export interface BlobStore {
  /** Streams `source` to a new temporary blob, durably; on any error removes what it wrote and rethrows. */
  writeTemp(source: Readable): Promise<TempBlob>;
  /** The temporary blob becomes the blob `sha256`, or is dropped when that blob exists already. */
  promote(temp: TempBlob, sha256: string): Promise<void>;
  discard(temp: TempBlob): Promise<void>;
  /** The blob's bytes, or those of `range`. */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  exists(sha256: string): Promise<boolean>;
  /** Every named and temporary blob. */
  list(): AsyncIterable<StoredEntry>;
  remove(entry: StoredEntry): Promise<void>;
}

export const SHA256 = /^[0-9a-f]{64}$/;
