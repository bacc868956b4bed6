/**
 * One upload's bytes on their way to the store: counted (413 the moment they pass the limit, the
 * temporary blob removed), hashed (SHA-256) and their first bytes kept for the signature check,
 * in one pass with constant memory.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { DetailError } from '../errors.js';
import type { BlobStore, TempBlob } from './blob-store.js';

/** How much of the start file-type reads to recognise a signature. */
export const HEAD_BYTES = 4100;

export const tooLarge = (limit: number) => new DetailError(413, `File too large: at most ${limit} bytes.`);

export interface Received {
  temp: TempBlob;
  sha256: string;
  size: number;
  head: Buffer;
}

export async function receive(source: Readable, store: BlobStore, limit: number): Promise<Received> {
  const hash = createHash('sha256');
  let size = 0;
  const head: Buffer[] = [];
  let headSize = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(tooLarge(limit));
      hash.update(chunk);
      if (headSize < HEAD_BYTES) {
        head.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
      done(null, chunk);
    },
  });
  source.once('error', (err) => meter.destroy(err));
  source.pipe(meter);
  const temp = await store.writeTemp(meter);
  return { temp, sha256: hash.digest('hex'), size, head: Buffer.concat(head) };
}
