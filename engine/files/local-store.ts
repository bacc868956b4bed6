/**
 * Blobs on local disk under `<root>` (BMS_DATA_DIR/files): `blobs/<2 hex>/<sha256>` and `tmp/<uuid>`.
 * A temporary file is fsynced before it is renamed to its name, and the directory after, so a
 * named blob is whole after a crash; the rename is atomic, so readers never see part of one.
 */
import fs from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { SHA256, type BlobStore, type ByteRange, type StoredEntry, type TempBlob } from './blob-store.js';

async function fsyncPath(target: string, flags = 'r'): Promise<void> {
  const handle = await open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

export class LocalStore implements BlobStore {
  private readonly blobs: string;
  private readonly temps: string;

  constructor(root: string) {
    this.blobs = path.join(root, 'blobs');
    this.temps = path.join(root, 'tmp');
  }

  private blobPath(sha256: string): string {
    return path.join(this.blobs, sha256.slice(0, 2), sha256);
  }

  async writeTemp(source: Readable): Promise<TempBlob> {
    await mkdir(this.temps, { recursive: true });
    const key = randomUUID();
    const file = path.join(this.temps, key);
    try {
      await pipeline(source, fs.createWriteStream(file, { flags: 'wx' }));
      await fsyncPath(file, 'r+');
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    return { key };
  }

  async promote(temp: TempBlob, sha256: string): Promise<void> {
    const from = path.join(this.temps, temp.key);
    const to = this.blobPath(sha256);
    if (await this.exists(sha256)) return unlink(from);
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to);
    await fsyncPath(path.dirname(to));
  }

  async discard(temp: TempBlob): Promise<void> {
    await rm(path.join(this.temps, temp.key), { force: true });
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    const stream = fs.createReadStream(this.blobPath(sha256), range ? { start: range.start, end: range.end } : {});
    // an open error (a blob gone) surfaces here, not half-way through an answer
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
    return stream;
  }

  async exists(sha256: string): Promise<boolean> {
    try {
      await stat(this.blobPath(sha256));
      return true;
    } catch (err) {
      if (missing(err)) return false;
      throw err;
    }
  }

  private async *entries(dir: string): AsyncIterable<{ name: string; full: string }> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if (missing(err)) return;
      throw err;
    }
    for (const name of names) yield { name, full: path.join(dir, name) };
  }

  async *list(): AsyncIterable<StoredEntry> {
    for await (const t of this.entries(this.temps)) yield { kind: 'temp', key: t.name, modified: (await stat(t.full)).mtime };
    for await (const d of this.entries(this.blobs)) {
      for await (const b of this.entries(d.full)) if (SHA256.test(b.name)) yield { kind: 'blob', sha256: b.name, modified: (await stat(b.full)).mtime };
    }
  }

  async remove(entry: StoredEntry): Promise<void> {
    await rm(entry.kind === 'blob' ? this.blobPath(entry.sha256) : path.join(this.temps, entry.key), { force: true });
  }
}
