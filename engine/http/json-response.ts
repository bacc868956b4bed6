/**
 * Responses whose JSON PostgreSQL has already built: the texts are sent as they are. A list is
 * read ahead up to a budget and answered in one piece when it fits, so its cursor's connection goes
 * back to the pool before the first byte is written; a longer one is streamed, so its length does
 * not decide the process's memory.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** A list of up to this many bytes is read whole and sent with a Content-Length. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;
/** A longer one is streamed in chunks of this size, holding its connection until the last. */
const CHUNK_BYTES = 64 * 1024;

export function sendJson(ctx: Context, text: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}

/**
 * Sends `records` as a JSON array. The first chunk is read before the status is set, so a failing
 * query still gets its error answer; a failure after that can only cut the connection. `headers`
 * are asked for once that chunk is read (a list's links depend on its first record).
 */
export async function sendJsonArray(ctx: Context, records: AsyncIterable<string>, headers: () => Record<string, string> = () => ({})): Promise<void> {
  const iterator = records[Symbol.asyncIterator]();
  const first = await nextChunk(iterator, '[', READ_AHEAD_BYTES)
    .then((chunk) => {
      ctx.set(headers());
      return chunk;
    })
    .catch(async (err: unknown) => {
      await iterator.return?.();
      throw err;
    });
  if (first.done) return sendJson(ctx, `${first.text}]`);
  ctx.type = 'application/json';
  ctx.body = Readable.from(rest(iterator, first.text), { objectMode: false });
}

async function* rest(iterator: AsyncIterator<string>, head: string): AsyncGenerator<string> {
  let chunk = { text: head, done: false };
  try {
    while (!chunk.done) {
      yield chunk.text;
      chunk = await nextChunk(iterator, '');
    }
    yield `${chunk.text}]`;
  } finally {
    // the client went away, or the body ended: either way the cursor and its connection go back
    await iterator.return?.();
  }
}

/** Records joined with commas after `prefix` until the chunk is full or the records end. */
async function nextChunk(iterator: AsyncIterator<string>, prefix: string, budget = CHUNK_BYTES): Promise<{ text: string; done: boolean }> {
  const parts: string[] = [prefix];
  let size = 0;
  let separator = prefix === '[' ? '' : ',';
  while (size < budget) {
    const next = await iterator.next();
    if (next.done) return { text: parts.join(''), done: true };
    parts.push(separator, next.value);
    size += next.value.length + 1;
    separator = ',';
  }
  return { text: parts.join(''), done: false };
}
