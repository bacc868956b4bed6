/**
 * Reads a JSON request body (koa-body) with the limits and messages of CONTRACT 4: 413 over
 * 1 MiB, 415 for anything but application/json, 400 for malformed JSON. Called by handlers
 * after the permission check, so a refused request never has its body read.
 */
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { DetailError } from '../errors.js';

export const BODY_LIMIT = 1024 * 1024;
const tooLarge = () => new DetailError(413, 'Request body too large.');

const parse = koaBody({
  json: true,
  jsonStrict: false,
  jsonLimit: BODY_LIMIT,
  urlencoded: false,
  text: false,
  multipart: false,
  onError(err) {
    const e = err as Error & { status?: number; type?: string };
    if (e.status === 413 || e.type === 'entity.too.large') throw tooLarge();
    throw new DetailError(400, `JSON parse error - ${e.message}`);
  },
});

export async function readJsonBody(ctx: Context): Promise<unknown> {
  if (Number(ctx.get('Content-Length') || 0) > BODY_LIMIT) throw tooLarge();
  const hasBody = ctx.request.length !== undefined ? ctx.request.length > 0 : ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) return {};
  if (!ctx.is('application/json')) {
    throw new DetailError(415, `Unsupported media type "${ctx.get('Content-Type')}" in request.`);
  }
  await parse(ctx, async () => {});
  const body = (ctx.request as unknown as { body?: unknown }).body;
  return body === '' || body === undefined ? {} : body;
}
