/**
 * The file operations beside the JSON API (engine/files/routes.ts), for every file field and the
 * attachments of a resource as its view lists them: raw or multipart uploads, downloads with
 * ranges and conditional requests, a file's versions and their restore. An upload's answer links
 * (OpenAPI `links`) to the operations that take its version or attachment id.
 */
import type { ResourceService } from '../crud/service.js';
import type { ViewFileField } from '../describe/view.js';
import { attachmentsType, fileType } from '../fields/files.js';
import { INT_MAX } from '../fields/values.js';
import { toOpenApi } from './json-schema.js';
import { json, responsesOf, type ErrorResponse } from './shared.js';
import { ref, type Header, type Operation, type Parameter, type Paths, type PathsPart, type RequestBody, type Response, type Schema } from './types.js';

const BINARY: Schema = { type: 'string', format: 'binary' };
const READ_ERRORS: readonly ErrorResponse[] = ['NotAuthenticated', 'PermissionDenied', 'NotFound'];
const UPLOAD_ERRORS: readonly ErrorResponse[] = ['BadRequest', 'NotAuthenticated', 'PermissionDenied', 'NotFound', 'FileTooLarge'];

const header = (description: string, schema: Schema, required = true): Header => ({ description, required, schema });
const pathId = (name: string, description: string): Parameter => ({ name, in: 'path', required: true, description, schema: { type: 'integer', minimum: 1, maximum: INT_MAX } });

const FILE_VERSION = pathId('file_version', "A version of the file, as its versions list numbers them (an upload's `version`).");
const ATTACHMENT = pathId('attachment', "Id of an attachment (an upload's `id`).");

const schemas: Record<string, Schema> = {
  StoredFile: { ...toOpenApi(fileType.schema({ type: 'file', description: '', readOnly: true })), description: "A file field's current version, as an upload or restore answers it and the record shows it; the versions list leaves out `url`." },
  Attachment: { ...toOpenApi(attachmentsType.schema({ type: 'attachments', description: '', readOnly: true }).items as Schema), description: 'One attached file.' },
};

const parameters: Parameter[] = [
  {
    name: 'Range',
    in: 'header',
    description: 'One byte range (`bytes=0-99`, `bytes=100-`, `bytes=-100`): 206 with that part, 416 past the end. Several ranges, or an `If-Range` that is not the current ETag, get the whole file.',
    schema: { type: 'string' },
  },
  { name: 'If-Range', in: 'header', description: 'The ETag the client holds: `Range` applies only while it is current.', schema: { type: 'string' } },
  { name: 'If-None-Match', in: 'header', description: "The file's ETag (its SHA-256, quoted): 304 while it is current.", schema: { type: 'string' } },
];

const DISPOSITION: Parameter = {
  name: 'Content-Disposition',
  in: 'header',
  description: 'With raw bytes: the file name, `attachment; filename="report.pdf"`, or RFC 5987\'s `filename*=UTF-8\'\'…` for any Unicode name (the last path segment is kept, at most 255 characters). Not needed with multipart, whose file part names it.',
  schema: { type: 'string' },
};

/** What a download answers, whole (200) or in part (206). */
function bytes(description: string, partial: boolean): Response {
  return {
    description,
    headers: {
      ETag: header("The file's SHA-256, quoted: a strong tag.", { type: 'string' }),
      'Last-Modified': header('When this version was uploaded.', { type: 'string' }),
      'Content-Disposition': header('Always `attachment`, with the file name.', { type: 'string' }),
      'X-Content-Type-Options': header('Always `nosniff`.', { type: 'string', enum: ['nosniff'] }),
      'Accept-Ranges': header('Always `bytes`.', { type: 'string', enum: ['bytes'] }),
      'Content-Length': header('The bytes sent.', { type: 'integer', minimum: 0 }),
      ...(partial ? { 'Content-Range': header('`bytes a-b/size`: the part sent.', { type: 'string', pattern: '^bytes \\d+-\\d+/\\d+$' }) } : {}),
    },
    // the stored media type; HTML, SVG, XML and script types go as application/octet-stream, never to be run
    content: { '*/*': { schema: BINARY } },
  };
}

function uploadBody(slot: ViewFileField): RequestBody {
  const declared = slot.spec.type === 'file' ? slot.spec.types : undefined;
  const limit = slot.spec.type === 'file' && slot.spec.maxBytes ? `at most ${slot.spec.maxBytes} bytes` : 'at most FILE_MAX_BYTES (default 100 MiB)';
  const raw = Object.fromEntries((declared?.length ? declared : ['*/*']).map((type) => [type, { schema: BINARY }]));
  return {
    required: true,
    description: `The file: its raw bytes with their \`Content-Type\` and \`Content-Disposition\`, or a \`multipart/form-data\` body whose first file part is stored (browsers). ${limit}. The media type sent must agree with the bytes' signature.`,
    content: { ...raw, 'multipart/form-data': { schema: { type: 'object', properties: { file: { ...BINARY, description: 'The file, with its name.' } }, required: ['file'] } } },
  };
}

/** The operations of one file field or of the attachments: their permissions are the record's. */
function slotPaths(service: ResourceService, slot: ViewFileField): Paths {
  const { resource } = service;
  const base = `${resource.path}/{id}/${slot.name}`;
  const prefix = `${resource.operationPrefix}_${slot.name}`;
  const op = (action: 'view' | 'change', suffix: string, summary: string, description: string, details: Omit<Operation, 'operationId' | 'summary' | 'description' | 'tags'>): Operation => ({
    operationId: `${prefix}_${suffix}`,
    summary: `${resource.title}: ${summary}`,
    description: `${description} A record the caller cannot see answers 404, as the record does. Requires the permission \`${resource.permissions[action]}\`.`,
    tags: [resource.module],
    ...details,
    'x-required-permission': resource.permissions[action],
  });
  const id = ref('parameters', 'Id');
  const download = (what: string, extra: Parameter[]) =>
    op('view', 'download', `download ${what}`, `The bytes of ${what}, always as a download.`, {
      parameters: [id, ...extra, ...parameters],
      responses: responsesOf(
        {
          200: bytes('The whole file.', false),
          206: bytes('The range asked for.', true),
          304: { description: '`If-None-Match` names the current ETag; no body.', headers: { ETag: header("The file's SHA-256, quoted.", { type: 'string' }) } },
        },
        [...READ_ERRORS, 'RangeNotSatisfiable'],
      ),
    });
  const self = { id: '$request.path.id' };
  if (slot.spec.type === 'file') {
    const stored = ref('schemas', 'StoredFile');
    const links = {
      version: { operationId: `${prefix}_version`, description: 'This version.', parameters: { ...self, file_version: '$response.body#/version' } },
      restore: { operationId: `${prefix}_restore`, description: 'Restore this version later.', parameters: { ...self, file_version: '$response.body#/version' } },
    };
    return {
      [base]: {
        get: download(`the current version of \`${slot.name}\``, []),
        put: op('change', 'upload', `upload \`${slot.name}\``, `${slot.description} Stores a new version; the record's \`${slot.name}\` shows it, and the audit trail records the change.`, {
          parameters: [id, DISPOSITION],
          requestBody: uploadBody(slot),
          responses: responsesOf({ 200: { description: 'The new version.', content: json(stored), links } }, UPLOAD_ERRORS),
        }),
      },
      [`${base}/versions`]: {
        get: op('view', 'versions', `versions of \`${slot.name}\``, 'Every version of the file, oldest first.', {
          parameters: [id],
          responses: responsesOf({ 200: { description: 'The versions.', content: json({ type: 'array', items: stored }) } }, READ_ERRORS),
        }),
      },
      [`${base}/versions/{file_version}`]: {
        get: op('view', 'version', `a version of \`${slot.name}\``, "One version's metadata.", {
          parameters: [id, FILE_VERSION],
          responses: responsesOf({ 200: { description: 'The version.', content: json(stored) } }, READ_ERRORS),
        }),
      },
      [`${base}/versions/{file_version}/restore`]: {
        post: op('change', 'restore', `restore a version of \`${slot.name}\``, "Stores a new version with that version's bytes (`restored_from` names it), recorded in the audit trail and the record's history.", {
          parameters: [id, FILE_VERSION],
          responses: responsesOf({ 201: { description: 'The new version.', content: json(stored), links } }, READ_ERRORS),
        }),
      },
    };
  }
  const attachment = ref('schemas', 'Attachment');
  const links = {
    download: { operationId: `${prefix}_download`, description: 'Its bytes.', parameters: { ...self, attachment: '$response.body#/id' } },
    destroy: { operationId: `${prefix}_destroy`, description: 'Remove it.', parameters: { ...self, attachment: '$response.body#/id' } },
  };
  return {
    [base]: {
      get: op('view', 'list', 'attachments', "The record's attached files, oldest first.", {
        parameters: [id],
        responses: responsesOf({ 200: { description: 'The attachments.', content: json({ type: 'array', items: attachment }) } }, READ_ERRORS),
      }),
      post: op('change', 'upload', 'attach a file', `${slot.description} Attaches a file; the record's \`${slot.name}\` lists it, and the audit trail records the change.`, {
        parameters: [id, DISPOSITION],
        requestBody: uploadBody(slot),
        responses: responsesOf({ 201: { description: 'The new attachment.', content: json(attachment), links } }, UPLOAD_ERRORS),
      }),
    },
    [`${base}/{attachment}`]: {
      get: download('an attachment', [ATTACHMENT]),
      delete: op('change', 'destroy', 'remove an attachment', 'Removes the attachment from the record.', {
        parameters: [id, ATTACHMENT],
        responses: responsesOf({ 204: { description: 'Removed; no body.' } }, READ_ERRORS),
      }),
    },
  };
}

/** The file operations of every resource with files, and the schemas they share. */
export function filePaths(services: Iterable<ResourceService>): PathsPart {
  const paths: Paths = {};
  for (const service of services) for (const slot of service.view.files) Object.assign(paths, slotPaths(service, slot));
  return { paths, schemas: Object.keys(paths).length ? schemas : {} };
}
