/**
 * Files as fields: a `file` field holds the current version's metadata, `attachments` the list of
 * attached files' metadata, both as jsonb written only by the file routes (engine/files) in the
 * upload's transaction. The bytes live in the blob store; the record names them by SHA-256.
 */
import type { AttachmentsField, FileField } from '../declare/fields.js';
import type { FieldType, Schema } from './field-type.js';
import { notFiltered as unfiltered } from './structured.js';

const notFiltered = {
  ...unfiltered,
  read: (_s: unknown, column: string) => column,
} as const;

const text = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });

/** What an upload answers and a record shows of one stored file. */
export const FILE_METADATA: Schema = {
  type: 'object',
  properties: {
    name: text('File name as uploaded (Content-Disposition filename).', { example: 'Prüfbericht 2026.pdf' }),
    size: { type: 'integer', minimum: 0, description: 'Size in bytes.', example: 48213 },
    type: text('Media type, checked against the bytes.', { example: 'application/pdf' }),
    sha256: text('SHA-256 of the bytes, lower-case hex; the download ETag.', { pattern: '^[0-9a-f]{64}$', example: 'a'.repeat(64) }),
    uploaded_by: { type: ['integer', 'null'], description: 'User who uploaded it.', example: 1 },
    uploaded_at: text('When it was uploaded (UTC).', { format: 'date-time', example: '2026-03-02T09:15:00.000Z' }),
    url: text('Where to download it (relative to the service).', { example: '/api/dms/document/1/file' }),
  },
};

const EXAMPLE = {
  name: 'Prüfbericht 2026.pdf',
  size: 48213,
  type: 'application/pdf',
  sha256: 'a'.repeat(64),
  uploaded_by: 1,
  uploaded_at: '2026-03-02T09:15:00.000Z',
};

export const fileType: FieldType<FileField> = {
  ...notFiltered,
  column: () => ({ type: 'jsonb' }),
  schema: () => ({
    ...FILE_METADATA,
    example: { ...EXAMPLE, version: 1, restored_from: null, url: '/api/dms/document/1/file' },
    properties: {
      ...(FILE_METADATA.properties as Schema),
      version: { type: 'integer', minimum: 1, description: 'Version number; every upload and restore adds one.', example: 1 },
      restored_from: { type: ['integer', 'null'], description: 'The version whose bytes a restore brought back.', example: null },
    },
  }),
  example: () => null,
};

export const attachmentsType: FieldType<AttachmentsField> = {
  ...notFiltered,
  column: () => ({ type: 'jsonb', default: '[]' }),
  schema: () => ({
    type: 'array',
    example: [{ id: 1, ...EXAMPLE, url: '/api/issue/issue/1/attachments/1' }],
    items: {
      ...FILE_METADATA,
      properties: { id: { type: 'integer', description: 'Attachment id.', example: 1 }, ...(FILE_METADATA.properties as Schema) },
    },
  }),
  example: () => [],
};
