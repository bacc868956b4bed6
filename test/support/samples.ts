/**
 * Valid bodies for any declared resource, from the engine's example values, with parents created
 * on the fly for required foreign keys (and, on demand, for every relation). Drives the
 * registry-wide tests, so a newly declared resource is exercised without writing a test.
 */
import { exampleBody } from '../../engine/crud/examples.js';
import { findForeignKey, type ManyToManyRef, type Resource } from '../../engine/registry/resource.js';
import type { Client } from './client.js';
import { unique } from './fixtures.js';

type Body = Record<string, unknown>;

let counter = 0;

/** What a sample holds beyond its required parts. */
export interface Fill {
  /** Body values taken as given: no parent is created for a key given here. */
  values?: Body;
  /** The example to take (from 1), a fresh one when absent; consecutive examples differ wherever a field's type varies. */
  n?: number;
  /** Also sets every optional foreign key, links every many-to-many, and sets `remote_key`. */
  complete?: boolean;
  /** Where parents and linked records come from (but those that must share a parent): created for this sample when absent. */
  parents?: Parents;
}

/** Reserves `count` consecutive example numbers and answers the first. */
export function exampleNumbers(count: number): number {
  counter += count;
  return counter - count + 1;
}

export class Samples {
  constructor(private readonly client: Client) {}

  /** A valid create body with every writable field set; parents of required foreign keys (but those given) are created first. */
  async body(resource: Resource, fill: Fill = {}, depth = 0): Promise<Body> {
    if (depth > 6) throw new Error(`Foreign keys of ${resource.key} nest too deep for samples.`);
    const n = fill.n ?? exampleNumbers(1);
    const body = { ...exampleBody(resource, n), ...fill.values };
    const given = (name: string) => fill.values !== undefined && name in fill.values;
    for (const fk of resource.foreignKeys) {
      if (fk.spec.readOnly || given(fk.writeName) || !(fk.required || fill.complete)) continue;
      // a resource with hooks may read what hangs off its parents (a form answers its template's questions):
      // a shared parent would gather other samples' records, so it gets its own
      const own = resource.declaration.hooks !== undefined;
      body[fk.writeName] = (await this.parent(fk.target, {}, own ? undefined : fill.parents, depth)).id;
    }
    if (!fill.complete) return body;
    if (!given('remote_key')) body.remote_key = unique(`sample-${n}`);
    for (const m of resource.manyToMany) {
      if (m.spec.readOnly || given(m.writeName)) continue;
      body[m.writeName] = [(await this.parent(m.target, sameParent(resource, m, body), fill.parents, depth)).id];
    }
    return body;
  }

  /** A parent or linked record: from `parents` unless it needs `values` of its own. */
  private parent(resource: Resource, values: Body, parents: Parents | undefined, depth: number): Promise<Record<string, any>> {
    return parents && Object.keys(values).length === 0 ? parents.of(resource) : this.create(resource, { values }, depth + 1);
  }

  async create(resource: Resource, fill: Fill = {}, depth = 0): Promise<Record<string, any>> {
    return this.post(resource, await this.body(resource, fill, depth));
  }

  /** Creates the record of `body`, which must succeed. */
  async post(resource: Resource, body: Body): Promise<Record<string, any>> {
    const res = await this.client.post(resource.path, body);
    if (res.status !== 201) throw new Error(`POST ${resource.path}: ${res.status} ${res.text}`);
    return res.body;
  }
}

/** The parent a linked record must share with the record linking it (`sameParent`), as body values of the linked one. */
function sameParent(resource: Resource, m: ManyToManyRef, body: Body): Body {
  if (!m.spec.sameParent) return {};
  const local = findForeignKey(resource, m.spec.sameParent.local)!;
  const remote = findForeignKey(m.target, m.spec.sameParent.remote)!;
  return { [remote.writeName]: body[local.writeName] };
}

/**
 * One record per resource, created on first use and then shared as the parent or linked record of
 * many samples: complete samples of every resource need far fewer writes than with parents of their own.
 */
export class Parents {
  private readonly records = new Map<string, Promise<Record<string, any>>>();

  constructor(private readonly samples: Samples) {}

  of(resource: Resource): Promise<Record<string, any>> {
    let record = this.records.get(resource.key);
    if (!record) this.records.set(resource.key, (record = this.samples.create(resource)));
    return record;
  }
}
