/**
 * A stored file as an HTTP answer: always a download (`Content-Disposition: attachment`, nosniff,
 * a sandboxing CSP), types a browser would run (HTML, SVG, XML, scripts) sent as octet-stream,
 * the SHA-256 as the strong ETag (If-None-Match → 304), one byte range (206, 416 past the end;
 * several ranges or an If-Range that no longer holds get the whole file).
 */
import { create as contentDisposition } from 'content-disposition';
import type { Context } from 'koa';
import { DetailError } from '../errors.js';
import { noneMatchNames } from '../http/conditional.js';
import type { BlobStore, ByteRange } from './blob-store.js';
import { OCTET_STREAM } from './media-type.js';

export interface Served {
  name: string;
  size: number;
  type: string;
  sha256: string;
  uploaded_at: string;
}

const ACTIVE = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript|application\/ecmascript|text\/ecmascript)$/;

/** The single range a `Range` header asks for; undefined: the whole file; null: not satisfiable. */
export function rangeOf(header: string, size: number): ByteRange | null | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || (m[2] !== '' && Number(m[2]) < start)) return null;
  return { start, end };
}

export async function serveFile(ctx: Context, store: BlobStore, file: Served): Promise<void> {
  const tag = `"${file.sha256}"`;
  ctx.set('ETag', tag);
  ctx.set('Last-Modified', new Date(file.uploaded_at).toUTCString());
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-cache');
  const known = ctx.get('If-None-Match');
  if (known && noneMatchNames(known, tag)) {
    ctx.status = 304;
    return;
  }
  ctx.set('Content-Disposition', contentDisposition(file.name, { type: 'attachment' }));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
  const ifRange = ctx.get('If-Range');
  const header = ctx.get('Range');
  const range = header && (!ifRange || ifRange === tag) ? rangeOf(header, file.size) : undefined;
  if (range === null) throw new DetailError(416, 'Requested range not satisfiable.', { 'Content-Range': `bytes */${file.size}` });
  ctx.type = ACTIVE.test(file.type) ? OCTET_STREAM : file.type;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
  }
  const length = range ? range.end - range.start + 1 : file.size;
  if (ctx.method === 'HEAD' || length === 0) {
    ctx.status = range ? 206 : 200;
    ctx.length = length;
    if (length === 0) ctx.body = '';
    return;
  }
  ctx.body = await store.read(file.sha256, range);
  ctx.length = length;
}
