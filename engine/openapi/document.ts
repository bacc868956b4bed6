/**
 * Assembles the OpenAPI 3.0.3 document from the registry and the services built from it: one
 * tag per module, every resource's paths and schemas, the batch actions, the auth endpoints,
 * the schema and docs themselves, and the deprecated twins. Built once, at start-up.
 */
import type { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';
import type { Resource } from '../registry/resource.js';
import { authPaths } from './auth-paths.js';
import { batchPaths } from './batch-paths.js';
import { deprecatedTwins } from './deprecated-paths.js';
import { docsPaths } from './docs-paths.js';
import { mcpPaths } from './mcp-paths.js';
import { readSchema, requestSchema, schemaNames } from './resource-schemas.js';
import { resourcePaths } from './resource-paths.js';
import { aggregatePaths } from './reporting-paths.js';
import { historyPaths, trashPaths } from './history-paths.js';
import { importPaths } from './import-paths.js';
import { filePaths } from './file-paths.js';
import * as shared from './shared.js';
import type { Document, Paths, Schema } from './types.js';

export const INFO = {
  title: 'Business Management Service API',
  version: '1.0.0',
  description: [
    'A multi-module business management API. Every resource offers list, create, retrieve, replace (PUT), update (PATCH) and delete, behind authentication and a permission check on every call.',
    '',
    '- **Authentication:** `Authorization: Token <key>`, or the session cookie of `POST /api/auth/login` (writes then need `X-CSRFToken`).',
    '- **Paths** are accepted with and without a trailing slash. `OPTIONS` answers 204 with `Allow`; a method a path does not offer answers 405 `{"detail": …}` with `Allow`.',
    '- **Records** carry `id`, `uuid`, `created`, `modified`, `created_by` (read-only) and `remote_key`. A foreign key `x` is written as `x_id` and read as `x`; a many-to-many is written as `…_ids` and read as the plural name.',
    '- **Lists** are plain arrays ordered by id unless `ordering` says otherwise; filters combine with AND; unknown parameters are ignored.',
    '- **Errors:** 400 maps field names to message lists; other errors are `{"detail": "…"}`. 500 `A server error occurred.` and 503 `Service temporarily unavailable.` can answer any request.',
  ].join('\n'),
};

/** One tag per module of `resources`, naming their titles. */
function moduleTags(resources: readonly Resource[]): { name: string; description: string }[] {
  const modules = new Map<string, string[]>();
  for (const r of resources) modules.set(r.module, [...(modules.get(r.module) ?? []), r.title]);
  return [...modules].map(([name, titles]) => ({ name, description: `The ${name} module: ${titles.join(', ')}.` }));
}

function tags(registry: Registry): { name: string; description: string }[] {
  return [
    ...moduleTags(registry.resources),
    { name: 'auth', description: 'Sign-in sessions and API tokens.' },
    ...moduleTags(registry.tables),
    { name: 'schema', description: 'This document and its interactive documentation.' },
    { name: 'mcp', description: 'The Model Context Protocol endpoint for agents.' },
  ];
}

/** Adds the entries of `from` to `into`, refusing a name given twice (two declarations would collide). */
function merge<T>(into: Record<string, T>, from: Record<string, T>): void {
  for (const [name, value] of Object.entries(from)) {
    if (name in into) throw new Error(`OpenAPI: "${name}" is generated twice; rename one of the declarations.`);
    into[name] = value;
  }
}

export function buildDocument(registry: Registry, services: ReadonlyMap<string, ResourceService>): Document {
  const paths: Paths = {};
  const schemas: Record<string, Schema> = { ...shared.schemas };
  for (const service of services.values()) {
    const names = schemaNames(service.resource);
    const writable = service.resource.actions.includes('add');
    merge(schemas, {
      [names.read]: readSchema(service.view),
      ...(writable ? { [names.request]: requestSchema(service.view, 'create'), [names.patched]: requestSchema(service.view, 'patch') } : {}),
    });
    merge(paths, resourcePaths(service, names));
    merge(paths, aggregatePaths(service));
    // the engine's own tables keep no history of their own
    if (!service.resource.engineTable) merge(paths, historyPaths(service, names));
  }
  for (const part of [batchPaths(registry.batches), authPaths(schemas[schemaNames(registry.get('user')).read]!), trashPaths(), importPaths(services.values()), filePaths(services.values())]) {
    merge(schemas, part.schemas);
    merge(paths, part.paths);
  }
  merge(paths, docsPaths());
  merge(paths, mcpPaths());
  merge(paths, deprecatedTwins(paths, registry.redirects));
  return {
    openapi: '3.0.3',
    info: INFO,
    // the origin the document is served from
    servers: [{ url: '/', description: 'This service.' }],
    tags: tags(registry),
    security: shared.globalSecurity,
    paths,
    components: {
      schemas,
      responses: shared.responses,
      parameters: shared.parameters,
      headers: shared.headers,
      securitySchemes: shared.securitySchemes,
    },
  };
}
