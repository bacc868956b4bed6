/**
 * The sheet an import request carries: the body itself (`Content-Type: text/csv` or the XLSX type) or
 * the file part of a `multipart/form-data` body (a browser's form; files/incoming.ts parses it). Its
 * bytes are read up to IMPORT_MAX_BYTES (413 beyond), so a background import can keep them.
 */
import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { incomingFile } from '../files/incoming.js';
import { tooLarge } from '../files/intake.js';
import { formatOf, unsupportedSheet, type SheetFormat } from './sheets.js';

export interface Upload {
  bytes: Buffer;
  format: SheetFormat;
}

async function readAll(source: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      source.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export async function readUpload(ctx: Context, limit: number): Promise<Upload> {
  if (Number(ctx.get('Content-Length') || 0) > limit) throw tooLarge(limit);
  if (ctx.is('multipart/form-data')) {
    const file = await incomingFile(ctx, 'file');
    const format = formatOf(file.type, file.name);
    if (!format) {
      file.stream.resume();
      throw unsupportedSheet(file.type);
    }
    return { bytes: await readAll(file.stream, limit), format };
  }
  const format = formatOf(ctx.get('Content-Type'));
  if (!format) throw unsupportedSheet(ctx.get('Content-Type'));
  return { bytes: await readAll(ctx.req, limit), format };
}
