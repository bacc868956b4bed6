/**
 * The batch actions of the registry (CONTRACT 10), e.g. `POST /api/dms/batch_move`: a body of
 * record ids (plus the target key of a move) and a count in the answer, all or nothing.
 */
import { FIRST_RECORD } from '../crud/examples.js';
import { INT_MAX } from '../fields/values.js';
import type { Batch } from '../registry/resource.js';
import { json, REPLAYED, responsesOf } from './shared.js';
import { componentName, ref, type PathsPart, type Schema } from './types.js';

/** Examples name the first records, which a fresh database gets from the resources' own examples (Swagger UI's "Try it out"). */
const id = { type: 'integer', minimum: 1, maximum: INT_MAX, example: FIRST_RECORD };

function requestOf(batch: Batch): Schema {
  const properties: Record<string, Schema> = {
    [batch.idsField]: {
      type: 'array',
      items: { ...id, description: `Id of a record: ${batch.resource.title}.` },
      maxItems: batch.maxIds,
      example: [FIRST_RECORD],
      description: `The ${batch.resource.title} records, at most ${batch.maxIds}; each must exist and be visible to the caller.`,
    },
  };
  const fk = batch.foreignKey;
  if (fk) properties[fk.writeName] = { ...id, ...(fk.required ? {} : { nullable: true }), description: fk.spec.description };
  return { type: 'object', description: `Body of ${batch.operationId}.`, properties, required: Object.keys(properties) };
}

export function batchPaths(batches: readonly Batch[]): PathsPart {
  const part: PathsPart = { paths: {}, schemas: {} };
  for (const batch of batches) {
    const name = componentName(batch.operationId);
    const { resultKey, description, module } = batch.declaration;
    part.schemas[`${name}Request`] = requestOf(batch);
    part.schemas[`${name}Result`] = {
      type: 'object',
      description: `Answer of ${batch.operationId}.`,
      properties: { [resultKey]: { type: 'integer', minimum: 0, description: `Number of ${batch.resource.title} records ${resultKey}.` } },
      required: [resultKey],
      additionalProperties: false,
    };
    part.paths[batch.path] = {
      post: {
        operationId: batch.operationId,
        summary: description,
        description: `${description} All or nothing, in one transaction: one missing or invisible id answers 400 under \`${batch.idsField}\` and nothing changes. Requires the permission \`${batch.permission}\`.`,
        tags: [module],
        parameters: [ref('parameters', 'IdempotencyKey')],
        requestBody: { required: true, content: json(ref('schemas', `${name}Request`)) },
        responses: responsesOf({ 200: { description: 'How many records were changed.', headers: REPLAYED, content: json(ref('schemas', `${name}Result`)) } }, [
          'BadRequest',
          'NotAuthenticated',
          'PermissionDenied',
          'IdempotencyKeyReused',
        ]),
        'x-required-permission': batch.permission,
      },
    };
  }
  return part;
}
