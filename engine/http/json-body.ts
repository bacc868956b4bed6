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
import { dropRestOfBody } from './drop-body.js';

export const BODY_LIMIT = 1024 * 1024;
const tooLarge = () => new DetailError(413, 'Request body too large.');
/** The client went away mid-body: nobody reads the answer, but it is no server error (nor the database's). */
const cutShort = () => new DetailError(400, 'The request body was cut short.');
const unsupported = (ctx: Context) => new DetailError(415, `Unsupported media type "${ctx.get('Content-Type')}" in request.`);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The body's bytes, read through the request's events (its async iterator costs a write a few per
 * cent of its CPU time). Past BODY_LIMIT: 413, the rest dropped (a chunked body; a declared length
 * is refused before reading). A client gone before the end gets no answer, but the handler ends.
 */
function readBytes(ctx: Context): Promise<Buffer> {
  const req = ctx.req;
  // read already (nothing to wait for), or gone
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(cutShort());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (then: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      then();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
      else settle(() => (dropRestOfBody(ctx), reject(tooLarge())));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = () => settle(() => reject(cutShort()));
    const onClose = () => settle(() => reject(cutShort()));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
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
