/**
 * An export's text written straight into buffers of about CHUNK_BYTES, handed on as each fills: no
 * text per cell or row is built, so a row leaves little garbage beside its record. That matters for
 * memory, not just speed: the rate of young-generation collections is the rate of garbage, and each
 * promotes what is waiting at that moment (the list's pieces, the streams' chunks) to the old
 * generation, which only a full collection empties.
 */
import { Readable } from 'node:stream';

const CHUNK_BYTES = 64 * 1024;
/** The most UTF-8 bytes a UTF-16 code unit becomes. */
const MAX_BYTES_PER_UNIT = 3;

export class ByteChunks {
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private done: Buffer[] = [];

  /** Text known to be ASCII (markup, references, numbers): its length is its size. */
  ascii(text: string): void {
    if (this.used + text.length > CHUNK_BYTES) this.flush();
    if (text.length > CHUNK_BYTES) return void this.done.push(Buffer.from(text, 'latin1'));
    this.used += this.buffer.write(text, this.used, 'latin1');
  }

  text(text: string): void {
    // measured only when it might not fit
    if (this.used + text.length * MAX_BYTES_PER_UNIT > CHUNK_BYTES) {
      const bytes = Buffer.byteLength(text);
      if (this.used + bytes > CHUNK_BYTES) this.flush();
      if (bytes > CHUNK_BYTES) return void this.done.push(Buffer.from(text));
    }
    this.used += this.buffer.write(text, this.used);
  }

  /** Hands on what the current buffer holds. */
  flush(): void {
    if (this.used === 0) return;
    this.done.push(this.buffer.subarray(0, this.used));
    this.buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }

  /** The buffers filled since the last call, in order. */
  take(): Buffer[] {
    const done = this.done;
    this.done = [];
    return done;
  }
}

export interface ByteWriter<Row> {
  head(out: ByteChunks): void;
  row(out: ByteChunks, row: Row): void;
  tail(out: ByteChunks): void;
}

async function* written<Row>(rows: AsyncIterable<readonly Row[]>, writer: ByteWriter<Row>): AsyncGenerator<Buffer> {
  const out = new ByteChunks();
  writer.head(out);
  for await (const batch of rows) {
    for (const row of batch) writer.row(out, row);
    yield* out.take();
  }
  writer.tail(out);
  out.flush();
  yield* out.take();
}

/**
 * The bytes `writer` makes of `rows` as a stream that takes the next batch only when its reader has
 * taken about a chunk (bytes, not objects: one chunk ahead, not sixteen). Destroying it ends `rows`.
 */
export const byteStream = <Row>(rows: AsyncIterable<readonly Row[]>, writer: ByteWriter<Row>): Readable => Readable.from(written(rows, writer), { objectMode: false });
