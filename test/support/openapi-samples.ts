/**
 * Valid requests built from the documented schemas alone: a value for every documented property
 * (its default, else its example, else one made from type, format and bounds, strings as long as
 * `maxLength` allows), and, for properties naming other records, ids of records created through
 * the documented create operation of their target.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Document, Schema } from '../../engine/openapi/types.js';
import type { Registry } from '../../engine/registry/registry.js';
import type { Client } from './client.js';
import { requestSchemaOf, resolve } from './openapi-document.js';

/** How a body property that names records is filled: a shared parent, a list of a fresh record or of the shared one, or not at all. */
export type Reference = { parent: string } | { fresh: string } | { shared: string } | 'omit';
/** The reference a property of the body sent to `path` makes, or undefined for a plain value. */
export type References = (path: string, property: string) => Reference | undefined;

/** Record ids in bodies: required parents are created through their documented create operation. */
export function referencesOf(r: Registry): References {
  const resources = new Map(r.resources.map((x) => [x.path, x]));
  const batches = new Map(r.batches.map((b) => [b.path, b]));
  return (path, property) => {
    const batch = batches.get(path);
    if (batch) {
      if (property === batch.idsField) return { fresh: batch.resource.path };
      return property === batch.foreignKey?.writeName ? { parent: batch.foreignKey.target.path } : undefined;
    }
    const resource = resources.get(path);
    const fk = resource?.foreignKeys.find((f) => f.writeName === property);
    if (fk) return fk.required ? { parent: fk.target.path } : 'omit';
    // links are optional; filling them would need each target's own constraints (same tracker …)
    return resource?.manyToMany.some((m) => m.writeName === property) ? 'omit' : undefined;
  };
}

let counter = 0;
const clamp = (n: number, s: Schema) => Math.min(Math.max(n, (s.minimum as number | undefined) ?? n), (s.maximum as number | undefined) ?? n);

/** Unique text exactly as long as allowed (up to a sane length), so documented limits are tried. */
function text(s: Schema): string {
  const unique = `${(++counter).toString(36)}${randomBytes(4).toString('hex')}`;
  const length = Math.max((s.minLength as number | undefined) ?? 0, Math.min((s.maxLength as number | undefined) ?? 40, 2000));
  return unique.padEnd(length, 'x').slice(0, length);
}

const FORMATS: Record<string, () => string> = {
  date: () => '2030-03-01',
  'date-time': () => '2030-03-01T09:00:00.000Z',
  email: () => `p${++counter}-${randomBytes(3).toString('hex')}@example.com`,
  uri: () => `https://example.com/item/${++counter}`,
  uuid: () => randomUUID(),
};

export function sampleValue(doc: Document, schema: Schema): unknown {
  const s = resolve<Schema>(doc, schema);
  if ('default' in s) return s.default;
  if ('example' in s) return s.example;
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null);
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) return sampleValue(doc, branches[0]!);
  switch (s.type) {
    case 'string':
      return FORMATS[s.format as string]?.() ?? text(s);
    case 'integer':
    case 'number':
      return clamp(1, s);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: (s.minItems as number | undefined) ?? 0 }, () => sampleValue(doc, s.items as Schema));
    default: {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(((s.required ?? []) as string[]).map((name) => [name, sampleValue(doc, properties[name]!)]));
    }
  }
}

export class SchemaSamples {
  private readonly parents = new Map<string, Promise<number>>();

  constructor(
    private readonly doc: Document,
    private readonly client: Client,
    private readonly references: References,
  ) {}

  /** A body for the documented request schema of an operation on `path`, every property set. */
  async body(path: string, schema: Schema): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      if (property.readOnly) continue;
      const reference = this.references(path, name);
      if (reference === 'omit') continue;
      if (reference === undefined) body[name] = sampleValue(this.doc, property);
      else if ('parent' in reference) body[name] = await this.parent(reference.parent);
      else if ('shared' in reference) body[name] = [await this.parent(reference.shared)];
      else body[name] = [(await this.create(reference.fresh)).id];
    }
    return body;
  }

  /** A record created through the documented create operation of `path`. */
  async create(path: string): Promise<Record<string, any>> {
    const op = this.doc.paths[path]?.post;
    const schema = op && requestSchemaOf(this.doc, op);
    if (!schema) throw new Error(`No documented create operation on ${path}.`);
    const res = await this.client.post(path, await this.body(path, schema));
    if (res.status !== 201) throw new Error(`${op.operationId}: ${res.status} ${res.text}`);
    return res.body;
  }

  /** The id of one record of `path`, created once and shared. */
  parent(path: string): Promise<number> {
    let id = this.parents.get(path);
    if (!id) {
      id = this.create(path).then((r) => r.id as number);
      this.parents.set(path, id);
    }
    return id;
  }
}
