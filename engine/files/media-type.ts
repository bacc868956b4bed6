/**
 * The media type an upload claims (Content-Type, or its multipart part's), held to the field's
 * declared types and to the bytes' own signature (file-type): a PDF must start like a PDF, and
 * bytes with a known signature cannot pass as another type. Text formats have no signature, so a
 * claimed text type stands when the bytes show none. `application/octet-stream` claims nothing.
 */

export const OCTET_STREAM = 'application/octet-stream';
const TOKEN = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** `Text/PLAIN; charset=utf-8` → `text/plain`; nothing or nonsense → octet-stream. */
export function mediaTypeOf(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return TOKEN.test(type) ? type : OCTET_STREAM;
}

/** Why the bytes cannot be stored as `claimed`; undefined when they can. */
export async function mediaTypeProblem(claimed: string, head: Buffer, allowed: readonly string[] | undefined): Promise<string | undefined> {
  if (allowed && !allowed.includes(claimed)) return `Media type "${claimed}" is not accepted here; send one of: ${allowed.join(', ')}.`;
  if (claimed === OCTET_STREAM) return undefined;
  // file-type (and its readers) loaded only for an upload: 1.5 MiB of heap a process may never use
  const { fileTypeFromBuffer, supportedMimeTypes } = await import('file-type');
  const detected = (await fileTypeFromBuffer(head))?.mime;
  if (detected && detected !== claimed) return `The file's content is ${detected}, not ${claimed} as sent.`;
  if (!detected && (supportedMimeTypes as ReadonlySet<string>).has(claimed)) return `The file's content is not ${claimed} as sent.`;
  return undefined;
}
