/**
 * Responses whose JSON PostgreSQL has already built: the texts are sent as they are. A list is
 * read ahead up to a budget of bytes and of time, and answered in one piece when it fits, so its
 * connection goes back to the pool before the first byte is written; a longer or slower one is
 * streamed, so neither its length decides the process's memory nor its statement's time the first byte.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { revealValues } from '../storage/field-encryption.js';

/** A list of up to this many bytes is read whole and sent with a Content-Length. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;
/** A list not read whole this long after its first piece is streamed from then on. */
const READ_AHEAD_MS = 50;
const LATE = Symbol('late');

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
    ctx.body = encoded('[', head.texts, ']');
    return;
  }
  const body = Readable.from(rest(iterator, head), { objectMode: false });
  // a body never read (HEAD, a client gone before the first byte) never starts the generator, so its
  // finally would not run: the stream's end lets the statement and its connection go in every case
  body.once('close', () => void iterator.return?.());
  ctx.body = body;
}

/**
 * `texts` joined by commas between `before` and `after` (single characters), encoded once into a
 * buffer of its exact size (no joined copy, no second pass to measure it).
 */
function encoded(before: string, texts: readonly string[], after = ''): Buffer {
  const bytes = texts.map((t) => Buffer.byteLength(t));
  const buffer = Buffer.allocUnsafe(before.length + after.length + Math.max(0, texts.length - 1) + bytes.reduce((a, b) => a + b, 0));
  let at = buffer.write(before);
  for (const [i, text] of texts.entries()) {
    if (i) at += buffer.write(',', at);
    at += buffer.write(text, at, bytes[i]!);
  }
  buffer.write(after, at);
  return buffer;
}

interface Head {
  texts: string[];
  done: boolean;
  /** The piece asked for when the time ran out. */
  pending?: Promise<IteratorResult<string, void>>;
}

/**
 * Pieces until their size reaches the budget, READ_AHEAD_MS have passed since the first (a list's
 * head, which its statement sends as soon as it has it), or they end.
 */
async function readAhead(iterator: AsyncIterator<string, void>): Promise<Head> {
  const texts: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let late: Promise<typeof LATE> | undefined;
  try {
    for (let size = 0; size < READ_AHEAD_BYTES; ) {
      const pending = iterator.next();
      // a piece that fails after the time ran out has its rejection handled by the race all the same
      const next = late ? await Promise.race([pending, late]) : await pending;
      if (next === LATE) return { texts, done: false, pending };
      if (next.done) return { texts, done: true };
      texts.push(revealValues(next.value));
      size += next.value.length;
      late ??= new Promise((resolve) => (timer = setTimeout(resolve, READ_AHEAD_MS, LATE)));
    }
    return { texts, done: false };
  } finally {
    clearTimeout(timer);
  }
}

/** The rest of a streamed list, each piece encoded once (a joined string would be copied again to be written). */
async function* rest(iterator: AsyncIterator<string, void>, { texts, pending }: Head): AsyncGenerator<Buffer> {
  try {
    yield encoded('[', texts); // at least the first piece: a list streams only after it
    for (let next = await (pending ?? iterator.next()); !next.done; next = await iterator.next()) yield encoded(',', [revealValues(next.value)]);
    yield Buffer.from(']');
  } finally {
    // the client went away, or the body ended: either way the statement and its connection are let go
    await iterator.return?.();
  }
}
