/**
 * Reads a JSON request body with the limits and messages of CONTRACT 4: 413 over 1 MiB, 415 for
 * anything but `application/json` in UTF-8, 400 for malformed JSON or bytes that are not UTF-8.
 * Called by handlers after the permission check, so a refused request never has its body read.
 *
 * The bytes are decoded strictly here rather than by koa-body, whose decoder turns invalid UTF-8
 * into U+FFFD and so would store characters the client never sent. For the same reason a string
 * escaping half a surrogate pair (`"\ud800"`) is refused: JSON's grammar allows it, but it is no
 * Unicode text (RFC 8259 8.2; I-JSON forbids it), and PostgreSQL would store U+FFFD.
 */
import type { Context } from 'koa';
import { findString } from '../crud/validator.js';
import { DetailError } from '../errors.js';

export const BODY_LIMIT = 1024 * 1024;
const tooLarge = () => new DetailError(413, 'Request body too large.');
const unsupported = (ctx: Context) => new DetailError(415, `Unsupported media type "${ctx.get('Content-Type')}" in request.`);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (err) {
    throw new DetailError(400, `JSON parse error - ${(err as Error).message}`);
  }
  // strictly decoded text holds no lone surrogate, so only an escape can make one: look only then
  if (SURROGATE_ESCAPE.test(text)) refuseLoneSurrogates(body);
  return body;
}

/** 400 when a string anywhere in parsed JSON (keys included) holds half a surrogate pair. */
function refuseLoneSurrogates(value: unknown): void {
  const lone = findString(value, (s) => LONE_SURROGATE.test(s))?.match(LONE_SURROGATE)?.[0];
  if (lone) throw new DetailError(400, `JSON parse error - Unpaired UTF-16 surrogate \\u${lone.charCodeAt(0).toString(16)} in a string.`);
}
