/**
 * JSON Schema of a resource's write body, derived from its declaration. The validator compiles
 * it, and the OpenAPI generator publishes it, so the documented request is the checked one.
 */
import type { FieldSpec } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';
import { typeOf } from '../fields/index.js';
import { INT_MAX, MAX_LIST_ITEMS } from '../fields/values.js';


type Schema = Record<string, unknown>;

const nullable = (schema: Schema, allowNull: boolean): Schema => {
  if (!allowNull) return schema;
  const type = schema.type;
  const out: Schema = { ...schema, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null];
  return out;
};

/** A field's request schema: its type's, with the declared description. */
export const REMOTE_KEY_DESCRIPTION = 'Key of the record in an external system; unique per resource.';

export function fieldSchema(spec: FieldSpec): Schema {
  return { description: spec.description, ...typeOf(spec).schema(spec) };
}

export interface BodySchema {
  type: 'object';
  properties: Record<string, Schema>;
  required: string[];
  additionalProperties: false;
}

/** An id naming a record of `target`: the path it lives under travels as `x-references`. */
export const referenceId = (target: Resource): Schema => ({ type: 'integer', minimum: 1, maximum: INT_MAX, 'x-references': target.path });

/** The declared description, then which resource the id (or ids) name. */
export const referenceDescription = (description: string, target: Resource, many = false): string =>
  `${description} ${many ? 'Ids of' : 'Id of a'} \`${target.path}\` record${many ? 's' : ''}.`;

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
    properties[fk.writeName] = nullable({ ...referenceId(fk.target), description: referenceDescription(fk.spec.description, fk.target) }, !fk.required);
    if (fk.required && mode === 'create') required.push(fk.writeName);
  }
  for (const m of resource.manyToMany) {
    if (m.spec.readOnly) continue;
    properties[m.writeName] = { type: 'array', maxItems: MAX_LIST_ITEMS, items: referenceId(m.target), description: referenceDescription(m.spec.description, m.target, true) };
  }
  properties.remote_key = { type: ['string', 'null'], maxLength: 255, description: REMOTE_KEY_DESCRIPTION };
  return { type: 'object', properties, required, additionalProperties: false };
}
