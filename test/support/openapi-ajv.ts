/**
 * Validates answers against the documented response schemas with Ajv: OpenAPI 3.0 schemas
 * turned into JSON Schema (`nullable` becomes a `null` type or branch, `$ref`s point at the
 * registered components, extensions Ajv does not know are dropped). Uses the service's own Ajv
 * setup, so its formats (`decimal`, `time-of-day`, …) and `x-decimal` check served values too.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../../engine/crud/validator.js';
import type { Document, Schema } from '../../engine/openapi/types.js';

const BASE = 'https://schema.test/components/';
const NESTED_MAP = new Set(['properties']);
const NESTED_ONE = new Set(['items', 'not', 'additionalProperties']);
const NESTED_LIST = new Set(['anyOf', 'oneOf', 'allOf']);

export class ResponseValidator {
  private readonly ajv: Ajv = createAjv();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Document) {
    // OpenAPI's `example` is documentation, not a constraint
    this.ajv.addKeyword('example');
    for (const [name, schema] of Object.entries(doc.components.schemas)) this.ajv.addSchema(this.toJsonSchema(schema), BASE + name);
  }

  toJsonSchema(schema: Schema): Schema {
    if (typeof schema.$ref === 'string') return { $ref: BASE + schema.$ref.split('/').pop()! };
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'nullable' || (key.startsWith('x-') && !this.ajv.getKeyword(key))) continue;
      if (NESTED_MAP.has(key)) out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, this.toJsonSchema(v)]));
      else if (NESTED_ONE.has(key) && typeof value === 'object') out[key] = this.toJsonSchema(value as Schema);
      else if (NESTED_LIST.has(key)) out[key] = (value as Schema[]).map((s) => this.toJsonSchema(s));
      else out[key] = value;
    }
    if (schema.nullable !== true) return out;
    if (typeof out.type !== 'string') return { anyOf: [out, { type: 'null' }] };
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }

  /** Ajv's messages for `data` against the OpenAPI `schema`; empty when it is valid. */
  errors(schema: Schema, data: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.toJsonSchema(schema));
      this.compiled.set(key, validate);
    }
    return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  }
}
