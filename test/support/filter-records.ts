/**
 * Records that tell every filter of a resource apart. Two complete samples `a` and `b` of
 * consecutive examples, with parents and linked records from two pools shared across resources,
 * differ in each value a filter reads. Where examples alone cannot make them differ, `b` moves on
 * from the state both start in, or takes a parent from which its derived value differs; read-only
 * columns are set in the database, as the API never takes them. Where a filter asks whether a
 * field is empty, a third record, `empty`, has those fields empty.
 */
import { setTimeout } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Filter } from '../../engine/crud/filters.js';
import { typeOf } from '../../engine/fields/index.js';
import { findForeignKey, type Field, type Resource } from '../../engine/registry/resource.js';
import type { Client } from './client.js';
import { exampleNumbers, Parents, type Samples } from './samples.js';

type Rec = Record<string, any>;

export interface FilterRecords {
  a: Rec;
  b: Rec;
  /** Present when a filter has the `isnull` lookup. */
  empty?: Rec;
}

export class FilterRecordMaker {
  /** The parents and linked records of every `a`, and those of every `b`: each side's differ from the other's. */
  private readonly parents: [Parents, Parents];

  constructor(
    private readonly client: Client,
    private readonly db: Knex,
    private readonly samples: Samples,
  ) {
    this.parents = [new Parents(samples), new Parents(samples)];
  }

  async make(resource: Resource, filters: readonly Filter[]): Promise<FilterRecords> {
    const filtered = resource.fields.filter((f) => filters.some((x) => x.on.key === f.name));
    const n = exampleNumbers(2);
    const values = await this.derivingApart(resource, filtered);
    const body = (side: 0 | 1) => this.samples.body(resource, { n: n + side, complete: true, parents: this.parents[side], values: values[side] });
    const bodies = await Promise.all([body(0), body(1)]);
    const a = await this.samples.post(resource, bodies[0]);
    // timestamps are served to the millisecond: b is created in a later one, so created and modified filters tell them apart
    await setTimeout(2);
    const b = await this.samples.post(resource, bodies[1]);
    await this.moveOn(resource, filtered, a, b);
    await this.setReadOnly(resource, filtered, [a, b], n);
    const emptied = filtered.filter((f) => filters.some((x) => x.on.key === f.name && x.on.lookup === 'isnull'));
    const empty = emptied.length ? await this.fetch(resource, await this.emptyRecord(resource, emptied)) : undefined;
    return { a: await this.fetch(resource, a.id), b: await this.fetch(resource, b.id), empty };
  }

  /** Body values of `a` and of `b` giving them parents from which their derived values differ. */
  private async derivingApart(resource: Resource, fields: Field[]): Promise<[Rec, Rec]> {
    const values: [Rec, Rec] = [{}, {}];
    for (const f of fields) {
      if (f.spec.type !== 'enum' || !f.spec.derived) continue;
      const { via, field, map } = f.spec.derived;
      const [first, ...others] = Object.keys(map);
      const second = others.find((from) => map[from] !== map[first!]);
      if (second === undefined) continue;
      const fk = findForeignKey(resource, via)!;
      const parent = async (source: string) => (await this.samples.create(fk.target, { values: { [field]: source } })).id as number;
      [values[0][fk.writeName], values[1][fk.writeName]] = await Promise.all([parent(first!), parent(second)]);
    }
    return values;
  }

  /** Moves `b` along a transition wherever it starts in `a`'s state (a resource with a single initial state). */
  private async moveOn(resource: Resource, fields: Field[], a: Rec, b: Rec): Promise<void> {
    for (const f of fields) {
      if (f.spec.type !== 'state' || a[f.name] !== b[f.name]) continue;
      const next = f.spec.transitions[b[f.name] as string]?.[0];
      if (next === undefined) continue;
      const res = await this.client.patch(`${resource.path}/${b.id}`, { [f.name]: next });
      if (res.status !== 200) throw new Error(`PATCH ${resource.path}/${b.id} to ${f.name} ${next}: ${res.status} ${res.text}`);
    }
  }

  /** Sets read-only columns that `a` and `b` leave empty or alike to consecutive examples, in the database. */
  private async setReadOnly(resource: Resource, fields: Field[], [a, b]: [Rec, Rec], n: number): Promise<void> {
    for (const f of fields.filter((f) => !f.writable && f.column !== null)) {
      if (a[f.name] !== null && b[f.name] !== null && a[f.name] !== b[f.name]) continue;
      const example = (side: number) => ({ [f.column!]: typeOf(f.spec).example(f.spec, f.name, n + side) });
      await this.db(resource.table).where({ id: a.id }).update(example(0));
      await this.db(resource.table).where({ id: b.id }).update(example(1));
    }
  }

  /** A record with `fields` empty: written empty where the API takes them, in the database otherwise. */
  private async emptyRecord(resource: Resource, fields: Field[]): Promise<number> {
    const writable = fields.filter((f) => f.writable);
    const direct = fields.filter((f) => !f.writable && f.column !== null);
    const { id } = await this.samples.create(resource, { values: Object.fromEntries(writable.map((f) => [f.name, null])) });
    if (direct.length) await this.db(resource.table).where({ id }).update(Object.fromEntries(direct.map((f) => [f.column!, null])));
    return id as number;
  }

  private async fetch(resource: Resource, id: number): Promise<Rec> {
    const res = await this.client.get(`${resource.path}/${id}`);
    if (res.status !== 200) throw new Error(`GET ${resource.path}/${id}: ${res.status} ${res.text}`);
    return res.body as Rec;
  }
}
