/**
 * The file a request carries: the raw body with `Content-Type` and `Content-Disposition: attachment;
 * filename="…"` (RFC 6266; `filename*=UTF-8''…` of RFC 5987 for any Unicode name), or the first
 * file part of a `multipart/form-data` body (browsers). Multipart is parsed by busboy, which hands
 * each part over as a stream while the body is still arriving; koa-body (formidable) parses the
 * whole body before the handler runs, so the permission and visibility checks could not come first
 * and the bytes could not go straight to the store through the same counting and hashing.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import type Busboy from 'busboy';
import { parse as parseDisposition } from 'content-disposition';
import type { Context } from 'koa';
import { badRequest, ValidationError } from '../errors.js';
import { mediaTypeOf } from './media-type.js';

export interface IncomingFile {
  name: string;
  /** The claimed media type, normalised. */
  type: string;
  stream: Readable;
}

const MAX_NAME = 255;

/** A stored name: the last path segment, without control characters, at most 255 characters. */
function fileName(raw: string | undefined, slot: string): string {
  const name = path.posix.basename((raw ?? '').replace(/\\/g, '/')).trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name === '.' || name === '..' || /[\u0000-\u001f\u007f]/.test(name)) {
    throw ValidationError.field(slot, 'Send the file name: Content-Disposition: attachment; filename="…" (or a multipart file part with a filename).');
  }
  if ([...name].length > MAX_NAME) throw ValidationError.field(slot, `Ensure the file name has no more than ${MAX_NAME} characters.`);
  return name;
}

function rawFile(ctx: Context, slot: string): IncomingFile {
  let filename: string | undefined;
  const header = ctx.get('Content-Disposition');
  if (header) {
    try {
      filename = parseDisposition(header).parameters.filename;
    } catch {
      throw badRequest(`Malformed Content-Disposition header: ${header}`);
    }
  }
  return { name: fileName(filename, slot), type: mediaTypeOf(ctx.get('Content-Type')), stream: ctx.req };
}

/** The first file part; the rest of the body is read and dropped as the parser goes on. */
async function multipartFile(ctx: Context, slot: string): Promise<IncomingFile> {
  // loaded with the first multipart body (the body waits, paused, until it is piped)
  const { default: busboy } = await import('busboy');
  return new Promise((resolve, reject) => {
    let parser: Busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: 100, fieldSize: 64 * 1024 } });
    } catch (err) {
      return reject(badRequest(`Malformed multipart body: ${(err as Error).message}`));
    }
    let found = false;
    parser.on('file', (_field, stream, info) => {
      if (found) return stream.resume();
      found = true;
      try {
        resolve({ name: fileName(info.filename, slot), type: mediaTypeOf(info.mimeType), stream });
      } catch (err) {
        stream.resume();
        reject(err as Error);
      }
    });
    parser.on('error', (err: Error) => reject(badRequest(`Malformed multipart body: ${err.message}`)));
    parser.on('close', () => reject(ValidationError.field(slot, 'The multipart body has no file part.')));
    ctx.req.pipe(parser);
  });
}

export function incomingFile(ctx: Context, slot: string): Promise<IncomingFile> | IncomingFile {
  return ctx.is('multipart/form-data') ? multipartFile(ctx, slot) : rawFile(ctx, slot);
}
