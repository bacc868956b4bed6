/**
 * The engine's JSON Schemas (draft-07 style, as the Ajv validators compile them) rewritten as
 * OpenAPI 3.0 Schema Objects: `type: [t, 'null']` becomes `type: t, nullable: true`, a `null`
 * branch of `anyOf`/`oneOf` makes the other branches nullable, `const` becomes a one-value
 * `enum`, numeric exclusive bounds become 3.0's boolean form, and keywords 3.0 lacks are kept
 * as `x-` extensions so no constraint is silently lost.
 */
import type { Schema } from './types.js';

/** Keywords a 3.0 Schema Object accepts as they are (nested schemas are handled separately). */
const KEPT = new Set([
  'title', 'description', 'type', 'format', 'default', 'example', 'enum', 'pattern', 'multipleOf',
  'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems',
  'minProperties', 'maxProperties', 'required', 'nullable', 'readOnly', 'writeOnly', 'deprecated', '$ref',
]);

const isNullType = (s: unknown): boolean => typeof s === 'object' && s !== null && (s as Schema).type === 'null';

/** The same schema, also allowing null. */
export function withNull(schema: Schema): Schema {
  const out: Schema = { ...schema, nullable: true };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...(schema.enum as unknown[]), null];
  return out;
}

function convertType(type: unknown, out: Schema): void {
  if (!Array.isArray(type)) {
    out.type = type;
    return;
  }
  const types = type.filter((t) => t !== 'null');
  if (types.length < type.length) out.nullable = true;
  if (types.length === 1) out.type = types[0];
  else out.anyOf = types.map((t) => ({ type: t }));
}

function convertBranches(branches: unknown[]): Schema[] {
  const rest = branches.filter((b) => !isNullType(b)).map((b) => toOpenApi(b as Schema));
  return branches.some(isNullType) ? rest.map(withNull) : rest;
}

export function toOpenApi(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') convertType(value, out);
    else if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, toOpenApi(v)]));
    else if (key === 'items' || key === 'not') out[key] = toOpenApi(value as Schema);
    else if (key === 'additionalProperties') out[key] = typeof value === 'boolean' ? value : toOpenApi(value as Schema);
    else if (key === 'anyOf' || key === 'oneOf') out[key] = convertBranches(value as unknown[]);
    else if (key === 'allOf') out[key] = (value as Schema[]).map(toOpenApi);
    else if (key === 'const') out.enum = [value];
    else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') {
      out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
      out[key] = true;
    } else if (KEPT.has(key) || key.startsWith('x-')) out[key] = value;
    else out[`x-${key}`] = value;
  }
  return out;
}
