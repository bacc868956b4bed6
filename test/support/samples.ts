/**
 * Valid bodies for any declared resource, from the engine's example values, with parents created
 * on the fly for required foreign keys. Drives the registry-wide tests, so a newly declared
 * resource is exercised without writing a test.
 */
import { exampleBody } from '../../engine/crud/examples.js';
import type { Resource } from '../../engine/registry/resource.js';
import type { Client } from './client.js';

let counter = 0;

export class Samples {
  constructor(private readonly client: Client) {}

  /** A valid create body with every writable field set; required parents (but those `given`) are created first. */
  async body(resource: Resource, depth = 0, given: ReadonlySet<string> = new Set()): Promise<Record<string, unknown>> {
    if (depth > 6) throw new Error(`Foreign keys of ${resource.key} nest too deep for samples.`);
    const body = exampleBody(resource, ++counter);
    for (const fk of resource.foreignKeys) {
      if (fk.spec.readOnly || !fk.required || given.has(fk.writeName)) continue;
      body[fk.writeName] = (await this.create(fk.target, depth + 1)).id;
    }
    return body;
  }

  async create(resource: Resource, depth = 0): Promise<Record<string, any>> {
    const res = await this.client.post(resource.path, await this.body(resource, depth));
    if (res.status !== 201) throw new Error(`POST ${resource.path}: ${res.status} ${res.text}`);
    return res.body;
  }
}
