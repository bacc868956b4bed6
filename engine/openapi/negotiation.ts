/**
 * Where the schema and its documentation page live (spec 4.5), and which serialisation of the
 * schema a request gets (CONTRACT 11): JSON for `?format=json` or an Accept naming a JSON type,
 * YAML for `?format=yaml`, a YAML type, or anything else.
 */

/** Without trailing slashes: the app strips them before routing. */
export const SCHEMA_PATH = '/api/schema';
export const DOCS_PATH = '/api/schema/swagger-ui';

export type Format = 'json' | 'yaml';

/** Media types, in order of preference when the client accepts any type or sends no Accept. */
export const MEDIA_TYPES: Readonly<Record<string, Format>> = {
  'application/yaml': 'yaml',
  'application/vnd.oai.openapi': 'yaml',
  'application/json': 'json',
  'application/vnd.oai.openapi+json': 'json',
};

const BY_FORMAT: Record<Format, string> = { yaml: 'application/yaml', json: 'application/json' };

/** `accepts`: Koa's `ctx.accepts`, which picks the best of the given types or answers false. */
export function negotiate(format: string | undefined, accepts: (...types: string[]) => string | false): { format: Format; type: string } {
  if (format === 'json' || format === 'yaml') return { format, type: BY_FORMAT[format] };
  const type = accepts(...Object.keys(MEDIA_TYPES));
  return type ? { format: MEDIA_TYPES[type]!, type } : { format: 'yaml', type: BY_FORMAT.yaml };
}
