/**
 * JSON Schema of a resource's write body, derived from its declaration. The validator compiles
 * it, and the OpenAPI generator publishes it, so the documented request is the checked one.
 */
import type { FieldSpec } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';

const COLOR_BASES = [
  'red', 'pink', 'purple', 'deep-purple', 'indigo', 'blue', 'light-blue', 'cyan', 'teal', 'green', 'light-green',
  'lime', 'yellow', 'amber', 'orange', 'deep-orange', 'brown', 'grey', 'blue-grey', 'black', 'white',
] as const;
export const COLOR_PATTERN = `^(${COLOR_BASES.join('|')})( (lighten-[1-5]|darken-[1-4]|accent-[1-4]))?$`;
export const INT_MAX = 2147483647;
export const INT_MIN = -2147483648;
/** Longest id or name list a body may carry: one query parameter per item, and PostgreSQL takes 65,535. */
export const MAX_LIST_ITEMS = 1000;

type Schema = Record<string, unknown>;

const nullable = (schema: Schema, allowNull: boolean): Schema => {
  if (!allowNull) return schema;
  const type = schema.type;
  const out: Schema = { ...schema, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null];
  return out;
};

export function fieldSchema(spec: FieldSpec): Schema {
  const d = { description: spec.description };
  switch (spec.type) {
    case 'string':
      return { ...d, type: 'string', minLength: spec.allowBlank ? 0 : 1, maxLength: spec.maxLength };
    case 'text':
      return { ...d, type: 'string', minLength: spec.allowBlank ? 0 : 1, maxLength: spec.maxLength };
    case 'email':
      return { ...d, type: 'string', minLength: 1, maxLength: spec.maxLength, format: 'email' };
    case 'url':
      return { ...d, type: 'string', minLength: 1, maxLength: spec.maxLength, format: 'uri' };
    case 'color':
      return { ...d, type: 'string', pattern: COLOR_PATTERN };
    case 'integer':
      return { ...d, type: 'integer', minimum: spec.minimum ?? INT_MIN, maximum: spec.maximum ?? INT_MAX };
    case 'decimal':
      return {
        ...d,
        type: 'string',
        format: 'decimal',
        'x-decimal': { digits: spec.digits, decimals: spec.decimals, minimum: spec.minimum, maximum: spec.maximum },
      };
    case 'boolean':
      return { ...d, type: 'boolean' };
    case 'date':
      return { ...d, type: 'string', format: 'date' };
    case 'datetime':
      return { ...d, type: 'string', format: 'date-time' };
    case 'time':
      return { ...d, type: 'string', format: 'time-of-day' };
    case 'json':
      return { ...d, ...spec.schema };
    case 'enum':
    case 'state':
      return { ...d, type: 'string', enum: [...spec.values] };
    case 'password':
      return { ...d, type: 'string', minLength: spec.minLength, maxLength: 128 };
    case 'permissions':
      return { ...d, type: 'array', maxItems: MAX_LIST_ITEMS, items: { type: 'string', maxLength: 255 } };
  }
}

export interface BodySchema {
  type: 'object';
  properties: Record<string, Schema>;
  required: string[];
  additionalProperties: false;
}

/** The write body: writable fields, `x_id` foreign keys, `x_ids` lists and `remote_key`. */
export function bodySchema(resource: Resource, mode: 'create' | 'patch'): BodySchema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const f of resource.fields) {
    if (!f.writable) continue;
    properties[f.name] = nullable(fieldSchema(f.spec), f.nullable);
    if (f.spec.required && mode === 'create') required.push(f.name);
  }
  for (const fk of resource.foreignKeys) {
    if (fk.spec.readOnly) continue;
    properties[fk.writeName] = nullable({ type: 'integer', minimum: INT_MIN, maximum: INT_MAX, description: fk.spec.description }, !fk.required);
    if (fk.required && mode === 'create') required.push(fk.writeName);
  }
  for (const m of resource.manyToMany) {
    if (m.spec.readOnly) continue;
    properties[m.writeName] = { type: 'array', maxItems: MAX_LIST_ITEMS, items: { type: 'integer', minimum: INT_MIN, maximum: INT_MAX }, description: m.spec.description };
  }
  properties.remote_key = { type: ['string', 'null'], maxLength: 255, description: 'Key of the record in an external system; unique per resource.' };
  return { type: 'object', properties, required, additionalProperties: false };
}
