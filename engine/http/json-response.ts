/**
 * Responses whose JSON PostgreSQL has already built: the texts are sent as they are. A list is
 * read ahead up to a budget and answered in one piece when it fits, so its connection goes back to
 * the pool before the first byte is written; a longer one is streamed, so its length does not
 * decide the process's memory.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** A list of up to this many bytes is read whole and sent with a Content-Length. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;

export function sendJson(ctx: Context, text: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}

/**
 * Sends `pieces` (records joined by commas) as a JSON array. The first pieces are read before the
 * status is set, so a failing query still gets its error answer; a failure after that can only cut
 * the connection. `headers` are asked for once they are read (a list's links depend on its first
 * record).
 */
export async function sendJsonArray(ctx: Context, pieces: AsyncIterable<string>, headers: () => Record<string, string> = () => ({})): Promise<void> {
  const iterator = pieces[Symbol.asyncIterator]();
  const head = await readAhead(iterator).catch(async (err: unknown) => {
    await iterator.return?.();
    throw err;
  });
  ctx.set(headers());
  ctx.type = 'application/json';
  if (head.done) {
    ctx.body = jsonArray(head.texts);
    return;
  }
  const body = Readable.from(rest(iterator, `[${head.texts.join(',')}`), { objectMode: false });
  // a body never read (HEAD, a client gone before the first byte) never starts the generator, so its
  // finally would not run: the stream's end lets the statement and its connection go in every case
  body.once('close', () => void iterator.return?.());
  ctx.body = body;
}

/** `[texts joined by commas]`, encoded once into a buffer of its exact size (no joined copy, no second pass to measure it). */
function jsonArray(texts: readonly string[]): Buffer {
  const bytes = texts.map((t) => Buffer.byteLength(t));
  const array = Buffer.allocUnsafe(2 + Math.max(0, texts.length - 1) + bytes.reduce((a, b) => a + b, 0));
  let at = array.write('[');
  for (const [i, text] of texts.entries()) {
    if (i) at += array.write(',', at);
    at += array.write(text, at, bytes[i]!);
  }
  array.write(']', at);
  return array;
}

/** Pieces until their size reaches the budget or they end. */
async function readAhead(iterator: AsyncIterator<string>): Promise<{ texts: string[]; done: boolean }> {
  const texts: string[] = [];
  for (let size = 0; size < READ_AHEAD_BYTES; ) {
    const next = await iterator.next();
    if (next.done) return { texts, done: true };
    texts.push(next.value);
    size += next.value.length;
  }
  return { texts, done: false };
}

async function* rest(iterator: AsyncIterator<string>, head: string): AsyncGenerator<string> {
  try {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield `,${next.value}`;
    yield ']';
  } finally {
    // the client went away, or the body ended: either way the statement and its connection are let go
    await iterator.return?.();
  }
}
