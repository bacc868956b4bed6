/**
 * Encrypted values (storage/field-encryption.ts) travel inside the record texts as tokens, so entity
 * tags, If-Match and stored idempotent answers all hold the token; a text answer is revealed here,
 * last, as it leaves the process. A list reveals each piece as it reads it (json-response.ts), whether
 * it then answers in one buffer or streams, so a buffer is left as it is (decoding, scanning and
 * encoding it again cost 45 µs for a list of 46 kB); MCP reveals its tool results
 * (mcp/calls.ts) and webhooks their bodies (webhooks/dispatcher.ts).
 */
import type { Context, Next } from 'koa';
import { revealValues } from '../storage/field-encryption.js';

export async function revealEncrypted(ctx: Context, next: Next): Promise<void> {
  await next();
  if (typeof ctx.body === 'string') {
    // set again only when changed: Koa's setter measures the text's bytes and sets its headers anew
    const revealed = revealValues(ctx.body);
    if (revealed !== ctx.body) ctx.body = revealed;
  }
  else if (ctx.body != null && (Array.isArray(ctx.body) || Object.getPrototypeOf(ctx.body) === Object.prototype)) {
    // the engine tables' answers (the audit trail's changes): rebuilt only when they hold a token
    const text = JSON.stringify(ctx.body);
    const revealed = revealValues(text);
    if (revealed !== text) ctx.body = JSON.parse(revealed);
  }
}
