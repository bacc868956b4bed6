/**
 * Reads a JSON request body with the limits and messages of CONTRACT 4: 413 over 1 MiB, 415 for
 * anything but `application/json` in UTF-8, 400 for malformed JSON or bytes that are not UTF-8.
 * Called by handlers after the permission check, so a refused request never has its body read.
 *
 * The bytes are decoded strictly here rather than by koa-body, whose decoder turns invalid UTF-8
 * into U+FFFD and so would store characters the client never sent.
 */
import type { Context } from 'koa';
import { DetailError } from '../errors.js';

export const BODY_LIMIT = 1024 * 1024;
const tooLarge = () => new DetailError(413, 'Request body too large.');
const unsupported = (ctx: Context) => new DetailError(415, `Unsupported media type "${ctx.get('Content-Type')}" in request.`);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

async function readBytes(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // stop buffering at the limit; the rest of the upload is not read
    if (size > BODY_LIMIT) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export async function readJsonBody(ctx: Context): Promise<unknown> {
  if (Number(ctx.get('Content-Length') || 0) > BODY_LIMIT) throw tooLarge();
  const hasBody = ctx.request.length !== undefined ? ctx.request.length > 0 : ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) return {};
  if (!ctx.is('application/json')) throw unsupported(ctx);
  const charset = ctx.request.charset.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') throw unsupported(ctx);
  const encoding = ctx.get('Content-Encoding');
  if (encoding && encoding.toLowerCase() !== 'identity') throw unsupported(ctx);
  const bytes = await readBytes(ctx);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new DetailError(400, 'JSON parse error - The body is not valid UTF-8.');
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new DetailError(400, `JSON parse error - ${(err as Error).message}`);
  }
}
