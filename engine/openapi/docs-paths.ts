/** The schema and the documentation page as operations of the document itself; both are public. */
import { DOCS_PATH, MEDIA_TYPES, SCHEMA_PATH } from './negotiation.js';
import type { Paths } from './types.js';

export function docsPaths(): Paths {
  const document = { type: 'object', description: 'The OpenAPI 3.0.3 document.' };
  return {
    [SCHEMA_PATH]: {
      get: {
        operationId: 'schema_retrieve',
        summary: 'This OpenAPI document',
        description: 'JSON for `?format=json` or `Accept: application/json`; YAML for `?format=yaml`, `Accept: application/yaml`, `application/vnd.oai.openapi` or no preference.',
        tags: ['schema'],
        parameters: [{ name: 'format', in: 'query', description: 'Serialisation, overriding the Accept header.', schema: { type: 'string', enum: ['json', 'yaml'] } }],
        responses: {
          200: { description: 'The document.', content: Object.fromEntries(Object.keys(MEDIA_TYPES).map((t) => [t, { schema: document }])) },
        },
        security: [],
      },
    },
    [DOCS_PATH]: {
      get: {
        operationId: 'schema_swagger_ui',
        summary: 'Interactive documentation',
        description: 'Swagger UI over this document. Under Authorize, enter a token as `Token <key>`.',
        tags: ['schema'],
        responses: { 200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
        security: [],
      },
    },
  };
}
