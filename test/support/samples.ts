/**
 * Valid bodies for any declared resource, built from its declaration: values that satisfy every
 * type, bound and rule, and parents created on the fly for required foreign keys. Drives the
 * registry-wide tests, so a newly declared resource is exercised without writing a test.
 */
import type { FieldSpec } from '../../engine/declare/index.js';
import type { Resource } from '../../engine/registry/resource.js';
import type { Client } from './client.js';
import { unique } from './fixtures.js';

function sampleValue(name: string, spec: FieldSpec): unknown {
  switch (spec.type) {
    case 'string':
      return unique(`Sample ${name}`).slice(0, spec.maxLength);
    case 'text':
      return `Sample ${name} text`;
    case 'email':
      return `${unique('someone')}@example.com`;
    case 'url':
      return 'https://example.com/sample';
    case 'color':
      return 'blue lighten-2';
    case 'integer':
      return Math.max(spec.minimum ?? 1, Math.min(spec.maximum ?? 3, 3));
    case 'decimal': {
      const v = Math.max(spec.minimum ?? 0, Math.min(spec.maximum ?? 12.5, 12.5));
      return v.toFixed(spec.decimals);
    }
    case 'boolean':
      return true;
    case 'date':
      return '2026-03-15';
    case 'datetime':
      return `2026-03-15T${String(8 + Math.floor(Math.random() * 10)).padStart(2, '0')}:00:00.000Z`;
    case 'time':
      return '08:30:00';
    case 'json':
      return spec.default ?? (spec.schema.type === 'array' ? [] : {});
    case 'enum':
      return spec.values[0];
    case 'state':
      return spec.initial[0];
    case 'password':
      return 'sample-password-1';
    case 'permissions':
      return [];
  }
}

export class Samples {
  constructor(
    private readonly client: Client,
    private readonly byKey: (key: string) => Resource,
  ) {}

  /** A valid create body with every writable field set; required parents are created first. */
  async body(resource: Resource, depth = 0): Promise<Record<string, unknown>> {
    if (depth > 6) throw new Error(`Foreign keys of ${resource.key} nest too deep for samples.`);
    const body: Record<string, unknown> = {};
    for (const f of resource.fields) {
      if (!f.writable) continue;
      body[f.name] = sampleValue(f.name, f.spec);
    }
    // rules: keep `later` after `earlier` by giving datetimes distinct hours
    for (const rule of resource.rules) {
      if (rule.kind === 'order' || rule.kind === 'noOverlap') {
        const [a, b] = rule.kind === 'order' ? [rule.earlier, rule.later] : [rule.start, rule.end];
        const spec = resource.fields.find((f) => f.name === a)?.spec;
        if (spec?.type === 'datetime') [body[a], body[b]] = ['2026-03-15T08:00:00.000Z', '2026-03-15T09:00:00.000Z'];
        if (spec?.type === 'date') [body[a], body[b]] = ['2026-03-15', '2026-03-20'];
        if (spec?.type === 'time') [body[a], body[b]] = ['08:00:00', '12:00:00'];
        if (spec?.type === 'integer' || spec?.type === 'decimal') [body[a], body[b]] = [body[a], body[a]];
      }
    }
    for (const fk of resource.foreignKeys) {
      if (fk.spec.readOnly || !fk.required) continue;
      body[fk.writeName] = (await this.create(fk.target, depth + 1)).id;
    }
    return body;
  }

  async create(resource: Resource, depth = 0): Promise<Record<string, any>> {
    const res = await this.client.post(resource.path, await this.body(resource, depth));
    if (res.status !== 201) throw new Error(`POST ${resource.path}: ${res.status} ${res.text}`);
    return res.body;
  }

  resource(key: string): Resource {
    return this.byKey(key);
  }
}
