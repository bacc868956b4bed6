/**
 * Serves the OpenAPI document at `SCHEMA_PATH`, in JSON or YAML by negotiation, and Swagger UI at
 * `DOCS_PATH`; both public (they hold no data). Each serialisation is built when first asked for
 * and kept, the document itself is not: its objects took 8 MiB of every process's heap (a quarter
 * of an idle one's), where most processes never serve it; its JSON is 3 MB of text, its YAML 4 MB.
 */
import type Router from '@koa/router';
import type { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';
import { buildDocument, INFO } from './document.js';
import { negotiate, SCHEMA_PATH, type Format } from './negotiation.js';
import { mountSwaggerUi } from './swagger-ui.js';

export function mountSchema(router: Router, registry: Registry, services: ReadonlyMap<string, ResourceService>): void {
  const serialised: Partial<Record<Format, string>> = {};
  // the YAML is made from the JSON's text, not from a second build: one document per process, so both
  // say the same even where a build draws something at random (the example passwords)
  // (yaml is loaded only then, as it is asked for as seldom)
  const serialise = async (format: Format): Promise<string> =>
    (serialised[format] ??=
      format === 'json' ? JSON.stringify(buildDocument(registry, services)) : (await import('yaml')).stringify(JSON.parse(await serialise('json'))));
  router.get(SCHEMA_PATH, async (ctx) => {
    const format = typeof ctx.query.format === 'string' ? ctx.query.format : undefined;
    const chosen = negotiate(format, (...types) => ctx.accepts(...types));
    ctx.type = `${chosen.type}; charset=utf-8`;
    ctx.vary('Accept');
    ctx.body = await serialise(chosen.format);
  });
  mountSwaggerUi(router, INFO.title);
}
