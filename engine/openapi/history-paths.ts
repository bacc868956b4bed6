/** The history and recovery endpoints: every resource's revisions and restore, and the trash (engine/history/). */
import { WRITTEN_AT } from '../audit/resource.js';
import { STORED_RECORD } from './resource-paths.js';
import type { ResourceService } from '../crud/service.js';
import { INT_MAX } from '../fields/values.js';
import { TRASH_PATH } from '../history/trash.js';
import type { SchemaNames } from './resource-schemas.js';
import { json, responsesOf } from './shared.js';
import { ref, type Parameter, type Paths, type PathsPart, type Schema } from './types.js';

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
  TrashEntry: {
    type: 'object',
    description: 'A deleted record of a resource declared with a trash, until restored or purged.',
    properties: {
      id: id('Identifier of the entry.'),
      resource: { type: 'string', description: 'The resource key, e.g. `issue/issue`.' },
      record_id: id('Id of the deleted record; a restore gives it back this id.'),
      deleted_at: { type: 'string', format: 'date-time', description: 'When it was deleted (UTC); purged TRASH_RETENTION_DAYS later.' },
      deleted_by: { ...id('The user who deleted it; null outside a request.'), nullable: true },
      request_id: { type: 'string', nullable: true, description: 'The `X-Request-Id` of the deleting request.' },
      values: { type: 'object', additionalProperties: true, description: 'The served columns of the record as it was deleted.' },
      links: { type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } }, description: 'Its many-to-many links by write name (`<name>_ids`).' },
    },
    required: ['id', 'resource', 'record_id', 'deleted_at', 'deleted_by', 'request_id', 'values', 'links'],
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

const query = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, schema });

export function trashPaths(): PathsPart {
  const one = { 200: { description: 'The entry.', content: json(ref('schemas', 'TrashEntry')) } };
  const itemId = [ref('parameters', 'Id')];
  const rules = "Entries are served to whom holds the record's view permission and whose view rule admits the record as deleted; restore and purge need its delete permission and its change rule too.";
  return {
    schemas,
    paths: {
      [TRASH_PATH]: {
        get: {
          operationId: 'trash_list',
          summary: 'List the trash',
          description: `Deleted records of resources with a trash, newest first. ${rules}`,
          tags: ['trash'],
          parameters: [
            query('resource', 'Entries of this resource (`issue/issue`).', { type: 'string' }),
            query('record_id', 'Entries of this record id.', { type: 'integer', minimum: 1, maximum: INT_MAX }),
            query('deleted_by', 'Entries deleted by this user.', { type: 'integer', minimum: 1, maximum: INT_MAX }),
            query('deleted_after', 'Entries deleted at or after this time.', { type: 'string', format: 'date-time' }),
            query('limit', 'At most this many entries (default 100, at most 1000); `Link` (`rel="next"`) points to the next page.', { type: 'integer', minimum: 1, maximum: 1000 }),
            query('offset', 'Skip this many entries first.', { type: 'integer', minimum: 0, maximum: 999999999 }),
          ],
          responses: responsesOf({ 200: { description: 'The entries.', content: json({ type: 'array', items: ref('schemas', 'TrashEntry') }) } }, ['ValidationFailed', 'NotAuthenticated']),
        },
      },
      [`${TRASH_PATH}/{id}`]: {
        get: { operationId: 'trash_retrieve', summary: 'One trash entry', description: rules, tags: ['trash'], parameters: itemId, responses: responsesOf(one, READ_ERRORS) },
        delete: {
          operationId: 'trash_destroy',
          summary: 'Purge a trash entry',
          description: `Deletes the record for good. ${rules}`,
          tags: ['trash'],
          parameters: itemId,
          responses: responsesOf({ 204: { description: 'Purged; no body.' } }, READ_ERRORS),
        },
      },
      [`${TRASH_PATH}/{id}/restore`]: {
        post: {
          operationId: 'trash_restore',
          summary: 'Restore a trash entry',
          description: `Puts the record back with its id and its links (to records that still exist), as its resource serves it. ${rules}`,
          tags: ['trash'],
          parameters: itemId,
          responses: responsesOf({ 200: { description: 'The restored record.', content: json({ type: 'object', additionalProperties: true }) } }, [...READ_ERRORS, 'RestoreConflict']),
        },
      },
    },
  };
}
