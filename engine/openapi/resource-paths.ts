/**
 * The operations of one resource (spec 4.1): list and create on its path; retrieve, replace,
 * update and delete on `{id}`; the state log on `{id}/transitions` when it has a lifecycle.
 * Each names the model permission it needs and the error responses it can give.
 */
import { writesAll } from '../declare/engine-table.js';
import { documentedBody } from '../crud/examples.js';
import type { ResourceService } from '../crud/service.js';
import { permissionOf, type Action } from '../registry/resource.js';
import { listParameters, shapeParameters } from './list-parameters.js';
import { exportContent, exportParameters } from './reporting-paths.js';
import type { SchemaNames } from './resource-schemas.js';
import { json, REPLAYED, responsesOf, WRITE_ERRORS } from './shared.js';
import { ref, type Method, type Operation, type Paths, type RequestBody } from './types.js';

type Details = Omit<Operation, 'operationId' | 'summary' | 'description' | 'tags'>;

const LIST_HEADERS = { Link: ref('headers', 'PageLinks'), 'X-Total-Count': ref('headers', 'TotalCount'), 'X-List-Truncated': ref('headers', 'ListTruncated') };

const ACTION_OF: Record<Method, Action> = { get: 'view', post: 'add', put: 'change', patch: 'change', delete: 'delete' };

/** A request body; `example` is what Swagger UI's "Try it out" sends (crud/examples.ts documentedBody). */
const body = (schema: string, required: boolean, example: Record<string, unknown>): RequestBody => ({
  required,
  content: { 'application/json': { schema: ref('schemas', schema), example } },
});

/** What a write answers. */
export const STORED_RECORD = 'The record as stored.';

export function resourcePaths(service: ResourceService, names: SchemaNames): Paths {
  const { resource } = service;
  const op = (action: Action, suffix: string, summary: string, description: string, details: Details): Operation => {
    const permission = permissionOf(resource, action);
    return {
      operationId: `${resource.operationPrefix}_${suffix}`,
      summary: `${resource.title}: ${summary}`,
      description: `${description} ${permission === undefined ? resource.engineTable!.permissionsOfRecords : `Requires the permission \`${permission}\`.`}`,
      tags: [resource.module],
      ...details,
      ...(permission === undefined ? {} : { 'x-required-permission': permission }),
    };
  };
  const record = json(ref('schemas', names.read));
  const tagged = { ETag: ref('headers', 'ETag') };
  const item = [ref('parameters', 'Id')];
  const ifMatch = [...item, ref('parameters', 'IfMatch')];
  // an engine table's declared writes have bodies, and examples, of their own
  const writes = resource.engineTable?.writes;
  const example = writes && writesAll(writes) ? writes.example : documentedBody(resource);
  const protectors = resource.referencedBy.filter((r) => r.fk.spec.onDelete === 'protect').map((r) => r.resource.title);
  const paths: Paths = {
    [resource.path]: {
      get: op('view', 'list', 'list', `${resource.description} Answers a plain JSON array of the records visible to the caller, filtered (all conditions must hold) and ordered by the query; paged by \`limit\` with \`offset\` or \`cursor\`, the neighbouring pages linked in \`Link\`.`, {
        parameters: [...listParameters(service), ...shapeParameters(service), ...exportParameters],
        responses: responsesOf({ 200: { description: 'The matching records.', headers: LIST_HEADERS, content: { ...json({ type: 'array', items: ref('schemas', names.read) }), ...exportContent } } }, [
          'ValidationFailed',
          'NotAuthenticated',
          'PermissionDenied',
          'ListsThrottled',
        ]),
      }),
      post: op('add', 'create', 'create', 'Creates a record; every offending field is reported at once. With `Idempotency-Key`, a repeat creates nothing and answers as the first did.', {
        parameters: [ref('parameters', 'IdempotencyKey')],
        requestBody: body(names.request, true, example),
        responses: responsesOf({ 201: { description: 'The created record.', headers: REPLAYED, content: record } }, [...WRITE_ERRORS, 'IdempotencyKeyReused']),
      }),
    },
    [`${resource.path}/{id}`]: {
      get: op('view', 'retrieve', 'retrieve', 'One record, shaped by `fields` and `expand`; with `If-None-Match` naming its current tag, 304.', {
        parameters: [...item, ...shapeParameters(service), ref('parameters', 'IfNoneMatch')],
        responses: responsesOf({ 200: { description: 'The record.', headers: tagged, content: record } }, ['NotModified', 'ValidationFailed', 'NotAuthenticated', 'PermissionDenied', 'NotFound']),
      }),
      put: op('change', 'update', 'replace', 'Replaces the record: every required field is needed; optional fields not sent keep their values.', {
        parameters: ifMatch,
        requestBody: body(names.request, true, example),
        responses: responsesOf({ 200: { description: STORED_RECORD, headers: tagged, content: record } }, [...WRITE_ERRORS, 'NotFound', 'PreconditionFailed']),
      }),
      patch: op('change', 'partial_update', 'update', 'Changes the fields sent and nothing else.', {
        parameters: ifMatch,
        requestBody: body(names.patched, false, example),
        responses: responsesOf({ 200: { description: STORED_RECORD, headers: tagged, content: record } }, [...WRITE_ERRORS, 'NotFound', 'PreconditionFailed']),
      }),
      delete: op('delete', 'destroy', 'delete', protectors.length ? `Deletes the record, unless ${protectors.join(', ')} records still refer to it.` : 'Deletes the record.', {
        parameters: ifMatch,
        responses: responsesOf({ 204: { description: 'Deleted; no body.' } }, ['NotAuthenticated', 'PermissionDenied', 'NotFound', 'PreconditionFailed', ...(protectors.length ? (['Conflict'] as const) : [])]),
      }),
    },
  };
  // only what the resource serves: a read-only engine table answers 405 to writes
  for (const item of Object.values(paths)) {
    for (const method of Object.keys(item) as Method[]) if (!resource.actions.includes(ACTION_OF[method])) delete item[method];
  }
  if (service.hasStates) {
    const states = resource.fields.filter((f) => f.spec.type === 'state').map((f) => `\`${f.name}\``);
    paths[`${resource.path}/{id}/transitions`] = {
      get: op('view', 'transitions', 'state changes', `Every recorded change of ${states.join(', ')}, oldest first, starting with the initial state.`, {
        parameters: item,
        responses: responsesOf({ 200: { description: 'The state changes.', content: json({ type: 'array', items: ref('schemas', 'StateChange') }) } }, [
          'NotAuthenticated',
          'PermissionDenied',
          'NotFound',
        ]),
      }),
    };
  }
  return paths;
}
