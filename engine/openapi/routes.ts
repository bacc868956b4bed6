/**
 * Serves the OpenAPI document at `SCHEMA_PATH`, in JSON or YAML by negotiation, and Swagger UI at
 * `DOCS_PATH`; both public (they hold no data). The document is built once, when the app is;
 * each serialisation when first asked for (YAML takes a moment), then kept.
 */
import type Router from '@koa/router';
import { stringify } from 'yaml';
import type { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';
import { buildDocument, INFO } from './document.js';
import { negotiate, SCHEMA_PATH, type Format } from './negotiation.js';
import { mountSwaggerUi } from './swagger-ui.js';

export function mountSchema(router: Router, registry: Registry, services: ReadonlyMap<string, ResourceService>): void {
  const document = buildDocument(registry, services);
  const serialised: Partial<Record<Format, string>> = {};
  // shared sub-objects are written out in full, not as YAML aliases
  const serialise = (format: Format) => (serialised[format] ??= format === 'json' ? JSON.stringify(document) : stringify(document, { aliasDuplicateObjects: false }));
  router.get(SCHEMA_PATH, (ctx) => {
    const format = typeof ctx.query.format === 'string' ? ctx.query.format : undefined;
    const chosen = negotiate(format, (...types) => ctx.accepts(...types));
    ctx.type = `${chosen.type}; charset=utf-8`;
    ctx.vary('Accept');
    ctx.body = serialise(chosen.format);
  });
  mountSwaggerUi(router, INFO.title);
}
