/** The history and recovery endpoints: every resource's revisions and restore, and the trash's restore (engine/history/). */
import { WRITTEN_AT } from '../audit/resource.js';
import { STORED_RECORD } from './resource-paths.js';
import type { ResourceService } from '../crud/service.js';
import { INT_MAX } from '../fields/values.js';
import { TRASH_PATH, TRASH_RULES } from '../history/trash.js';
import type { SchemaNames } from './resource-schemas.js';
import { json, responsesOf } from './shared.js';
import { ref, type Paths, type PathsPart, type Schema } from './types.js';

const id = (description: string): Schema => ({ type: 'integer', minimum: 1, maximum: INT_MAX, description, example: 1 });
const VALUES: Schema = {
  type: 'object',
  additionalProperties: true,
  description: 'The recorded fields by column (foreign keys as `<name>_id`) and the link sets by write name (`<name>_ids`, ids ascending); never a password.',
};
const READ_ERRORS = ['NotAuthenticated', 'PermissionDenied', 'NotFound'] as const;

const schemas: Record<string, Schema> = {
  RecordVersion: {
    type: 'object',
    description: 'One version of a record: the values it had after one recorded write.',
    properties: {
      version: id('The version: the id of the audit entry of the write; what a restore names.'),
      at: { type: 'string', format: 'date-time', description: WRITTEN_AT },
      user: { ...id('The user who wrote; null outside a request.'), nullable: true },
      action: { type: 'string', enum: ['create', 'update'], description: 'The write.' },
      request_id: { type: 'string', nullable: true, description: 'The `X-Request-Id` of the request that wrote.' },
      values: VALUES,
    },
    required: ['version', 'at', 'user', 'action', 'request_id', 'values'],
    additionalProperties: false,
  },
};

/** `{resource}/{id}/history` and its restore, for one resource. */
export function historyPaths(service: ResourceService, names: SchemaNames): Paths {
  const { resource } = service;
  const base = `${resource.path}/{id}/history`;
  const tags = [resource.module];
  return {
    [base]: {
      get: {
        operationId: `${resource.operationPrefix}_history`,
        summary: `${resource.title}: history`,
        description: `The record's versions, newest first, built from the audit trail: each with its values after the write. Only versions the caller could see (the audit trail's rule) are listed. Requires the permission \`${resource.permissions.view}\`.`,
        tags,
        parameters: [ref('parameters', 'Id')],
        responses: responsesOf({ 200: { description: 'The versions.', content: json({ type: 'array', items: ref('schemas', 'RecordVersion') }) } }, READ_ERRORS),
        'x-required-permission': resource.permissions.view,
      },
    },
    [`${base}/{version}/restore`]: {
      post: {
        operationId: `${resource.operationPrefix}_history_restore`,
        summary: `${resource.title}: restore a version`,
        description: `Writes the version's values back where they differ, as a PATCH of them would (validation, access rules, references, state moves): a new version. Requires the permission \`${resource.permissions.change}\`.`,
        tags,
        parameters: [ref('parameters', 'Id'), ref('parameters', 'Version')],
        responses: responsesOf({ 200: { description: STORED_RECORD, content: json(ref('schemas', names.read)) } }, ['BadRequest', ...READ_ERRORS]),
        'x-required-permission': resource.permissions.change,
      },
    },
  };
}

/** `/api/trash/{id}/restore`, beside the routes the trash has as an engine table (history/resource.ts). */
export function trashPaths(): PathsPart {
  return {
    schemas,
    paths: {
      [`${TRASH_PATH}/{id}/restore`]: {
        post: {
          operationId: 'trash_restore',
          summary: 'Restore a trash entry',
          description: `Puts the record back with its id and its links (to records that still exist), as its resource serves it. ${TRASH_RULES}`,
          tags: ['trash'],
          parameters: [ref('parameters', 'Id')],
          responses: responsesOf({ 200: { description: 'The restored record.', content: json({ type: 'object', additionalProperties: true }) } }, [...READ_ERRORS, 'RestoreConflict']),
        },
      },
    },
  };
}
