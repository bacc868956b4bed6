/**
 * The ceiling of the file scenarios: what `node:http` and `fs` alone do for
 * `PUT|GET /api/dms/document/<id>/file`, with the work the service cannot skip and nothing else:
 * the token's user (the issue routes' lookup), the bytes streamed to a temporary file while hashed
 * (SHA-256), fsynced and renamed to their hash, the record naming them (a small file, replaced by
 * rename); a download streams the named file with its length and ETag. No database row, no
 * version, no permission or visibility rule, no media type check, no audit entry or event.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const FILE_PATH = /^\/api\/dms\/document\/(\d{1,10})\/file$/;

export class CeilingFiles {
  constructor(private readonly root: string) {}

  /** Whether `req` is a file request: answered here, after `authenticate` let it through. */
  handles(req: http.IncomingMessage): boolean {
    return FILE_PATH.test(new URL(req.url ?? '/', 'http://ceiling').pathname);
  }

  async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const id = FILE_PATH.exec(new URL(req.url ?? '/', 'http://ceiling').pathname)![1]!;
    const named = path.join(this.root, 'names', id);
    if (req.method === 'PUT') {
      await Promise.all(['tmp', 'blobs', 'names'].map((d) => mkdir(path.join(this.root, d), { recursive: true })));
      const temp = path.join(this.root, 'tmp', randomUUID());
      const hash = createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      // flushed (fsync) before it is closed, as the service's store does
      await pipeline(req, tap, fs.createWriteStream(temp, { flush: true }));
      const sha256 = hash.digest('hex');
      await rename(temp, path.join(this.root, 'blobs', sha256));
      const pointer = `${named}.${randomUUID()}`;
      await writeFile(pointer, sha256);
      await rename(pointer, named);
      const body = JSON.stringify({ sha256, size });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const sha256 = await readFile(named, 'utf8');
    const blob = path.join(this.root, 'blobs', sha256);
    const { size } = await stat(blob);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size, ETag: `"${sha256}"`, 'Content-Disposition': 'attachment; filename="bench.bin"' });
    await pipeline(fs.createReadStream(blob), res);
  }
}
