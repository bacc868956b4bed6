/**
 * `manage seed --demo [--seed N]`: the modules' declared demo rows (declare/demo.ts), written
 * through the bulk writer, which holds them to the declaration as the API does. Resources are
 * written after those they reference; references name a row's key or label; a state is reached
 * through declared transitions from an initial state; fields a row does not give are filled from
 * the field types (their examples, which keep record rules) when the declaration requires them. A resource without
 * demo rows gets one generated record. Every record carries the remote_key `demo:<resource>:<key>`:
 * a second run adds only the rows not there yet. The same seed gives the same records.
 */
import type { Knex } from 'knex';
import { BulkWriter, type NewRecord } from '../crud/bulk.js';
import { exampleBody } from '../crud/examples.js';
import { ResourceService } from '../crud/service.js';
import { createAjv } from '../crud/validator.js';
import { recordLabelOf } from '../describe/view.js';
import { ValidationError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import type { Field, Resource } from '../registry/resource.js';
import { CommandError } from './errors.js';
import { seedingPrincipal } from './seed.js';

type DemoRow = Readonly<Record<string, unknown>>;
/** Per resource, the ids of its demo records by key and by label (users by username too). */
type Known = Map<string, Map<string, number>>;

const REMOTE_KEY_PREFIX = 'demo:';
const remoteKeyOf = (resource: Resource, key: string) => `${REMOTE_KEY_PREFIX}${resource.key}:${key}`.slice(0, 255);

/**
 * The resources ordered so that those a resource's rows name (and those it requires) come before it;
 * a resource without rows counts every reference, its generated record fills them all.
 */
export function referencedFirst(resources: readonly Resource[], demo: Registry['demo']): Resource[] {
  const ordered: Resource[] = [];
  const seen = new Set<string>();
  const visit = (r: Resource) => {
    if (seen.has(r.key)) return;
    seen.add(r.key);
    const rows = demo.get(r.key);
    const named = (name: string) => !rows || rows.some((row) => row[name] !== undefined && row[name] !== null);
    const targets = [...r.foreignKeys.filter((fk) => fk.required || named(fk.name)), ...r.manyToMany.filter((m) => named(m.name))].map((ref) => ref.target);
    for (const target of targets) if (target !== r) visit(target);
    ordered.push(r);
  };
  resources.forEach(visit);
  return ordered;
}

/**
 * The state a row names, reached from an initial state along declared transitions: the initial
 * state it starts in and the states it then moves through (shortest walk; the default state first).
 */
export function walkTo(spec: Extract<Field['spec'], { type: 'state' }>, target: string): { start: string; moves: string[] } | undefined {
  const starts = [spec.default, ...spec.initial.filter((s) => s !== spec.default)].filter((s) => spec.initial.includes(s));
  let frontier = starts.map((s) => [s]);
  const seen = new Set(starts);
  while (frontier.length) {
    const done = frontier.find((path) => path.at(-1) === target);
    if (done) return { start: done[0]!, moves: done.slice(1) };
    frontier = frontier.flatMap((path) =>
      (spec.transitions[path.at(-1)!] ?? []).filter((s) => !seen.has(s) && seen.add(s)).map((s) => [...path, s]),
    );
  }
  return undefined;
}

/** A deterministic value for a text-like field no row gives (the field types' own examples carry a random part). */
function textValue(f: Field, n: number): unknown {
  const words = f.name.replace(/_/g, ' ');
  const spec = f.spec;
  switch (spec.type) {
    case 'string':
      return `${words[0]!.toUpperCase()}${words.slice(1)} ${n}`.slice(0, spec.maxLength);
    case 'email':
      return `demo${n}@example.ch`;
    case 'password':
      return `demo-password-${n}`;
    default:
      return undefined;
  }
}

class DemoSeed {
  private readonly known: Known = new Map();
  private readonly ajv = createAjv();

  constructor(
    private readonly db: Knex,
    private readonly registry: Registry,
    private readonly seed: number,
  ) {}

  /** Writes the demo rows not there yet; answers how many records were added and how many were there. */
  async run(): Promise<{ added: number; present: number; resources: number }> {
    const admin = await seedingPrincipal(this.db);
    await this.learnUsers();
    let added = 0;
    let present = 0;
    const resources = referencedFirst(this.registry.resources, this.registry.demo);
    for (const resource of resources) {
      const rows = this.registry.demo.get(resource.key);
      const existing = await this.existing(resource);
      const writer = new BulkWriter(new ResourceService(resource, this.db, this.ajv, this.registry));
      let pending: { key: string; row: DemoRow | undefined; record: NewRecord }[] = [];
      // written in waves: a row naming a row of its own resource (a parent) waits until that one is written
      const flush = async () => {
        const ids = await writer.insert(admin, pending.map((p) => p.record)).catch((err: unknown) => {
          // a demo row the declaration refuses is a mistake in the row: name it in one line
          if (err instanceof ValidationError) throw new CommandError(`demo data of ${resource.key} refused: ${JSON.stringify(err.errors)}`);
          throw err;
        });
        ids.forEach((id, k) => this.learn(resource, pending[k]!.key, pending[k]!.row, id));
        added += ids.length;
        pending = [];
      };
      for (const [i, row] of (rows ?? [undefined]).entries()) {
        const key = this.keyOf(resource, row, i);
        const id = existing.get(remoteKeyOf(resource, key));
        if (id !== undefined) {
          this.learn(resource, key, row, id);
          present++;
          continue;
        }
        if (row && pending.length && this.namesUnwritten(resource, row)) await flush();
        pending.push({ key, row, record: this.record(resource, row, key, this.seed * 1000 + i + 1) });
      }
      await flush();
    }
    return { added, present, resources: resources.length };
  }

  /** Whether the row names a record of its own resource not written yet. */
  private namesUnwritten(resource: Resource, row: DemoRow): boolean {
    const known = this.known.get(resource.key);
    const own = [...resource.foreignKeys, ...resource.manyToMany].filter((ref) => ref.target === resource);
    return own.some((ref) => [row[ref.name]].flat().some((name) => typeof name === 'string' && !known?.has(name)));
  }

  /** The row's key: declared, else its label, else its position. */
  private keyOf(resource: Resource, row: DemoRow | undefined, index: number): string {
    const label = recordLabelOf(resource);
    const named = row?.key ?? (label ? row?.[label] : undefined);
    return named === undefined || named === null ? String(index + 1) : String(named);
  }

  private learn(resource: Resource, key: string, row: DemoRow | undefined, id: number): void {
    const names = this.known.get(resource.key) ?? new Map<string, number>();
    this.known.set(resource.key, names);
    names.set(key, id);
    const label = recordLabelOf(resource);
    if (label && row?.[label] !== undefined) names.set(String(row[label]), id);
  }

  /** Every user is known by username, so rows may name the superuser that seeds as well as demo users. */
  private async learnUsers(): Promise<void> {
    const users = (await this.db('users').select('id', 'username')) as { id: number; username: string }[];
    this.known.set('user', new Map(users.map((u) => [u.username, u.id])));
  }

  /** The resource's demo records already there: remote_key → id. */
  private async existing(resource: Resource): Promise<Map<string, number>> {
    const rows = (await this.db(resource.table).where('remote_key', 'like', `${REMOTE_KEY_PREFIX}${resource.key}:%`).select('id', 'remote_key')) as { id: number; remote_key: string }[];
    return new Map(rows.map((r) => [r.remote_key, r.id]));
  }

  private resolve(resource: Resource, row: string, relation: string, target: Resource, name: string): number {
    const id = this.known.get(target.key)?.get(name);
    if (id === undefined) throw new CommandError(`demo row "${row}" of ${resource.key}: ${relation} names "${name}", which is no demo row of ${target.key} (written before it).`);
    return id;
  }

  /** The record of a declared row (given fields, required ones filled, references resolved) or, without one, a generated record. */
  private record(resource: Resource, row: DemoRow | undefined, key: string, n: number): NewRecord {
    const example = exampleBody(resource, n);
    const body: Record<string, unknown> = { remote_key: remoteKeyOf(resource, key) };
    const walks: Record<string, string[]> = {};
    const unknown = Object.keys(row ?? {}).find((name) => name !== 'key' && !resource.fields.some((f) => f.writable && f.name === name) && ![...resource.foreignKeys, ...resource.manyToMany].some((ref) => ref.name === name));
    if (unknown) throw new CommandError(`demo row "${key}" of ${resource.key}: "${unknown}" is no writable field or relation.`);
    for (const f of resource.fields) {
      if (!f.writable) continue;
      const given = row?.[f.name];
      if (given !== undefined && f.spec.type === 'state' && typeof given === 'string') {
        const walk = walkTo(f.spec, given);
        if (!walk) throw new CommandError(`demo row "${key}" of ${resource.key}: state "${given}" cannot be reached from an initial state.`);
        body[f.name] = walk.start;
        walks[f.name] = walk.moves;
      } else if (given !== undefined) body[f.name] = given;
      else if (!row || f.spec.required) body[f.name] = textValue(f, n) ?? example[f.name];
      if (body[f.name] === undefined) delete body[f.name];
    }
    for (const fk of resource.foreignKeys) {
      const given = row?.[fk.name];
      if (typeof given === 'string') body[fk.writeName] = this.resolve(resource, key, fk.name, fk.target, given);
      else if (given === null) body[fk.writeName] = null;
      else if ((!row || fk.required) && fk.target !== resource) {
        // not named: one of the target's demo records, chosen by the seed
        const ids = [...new Set(this.known.get(fk.target.key)?.values())];
        if (ids.length) body[fk.writeName] = ids[n % ids.length];
      }
    }
    for (const m of resource.manyToMany) {
      const given = row?.[m.name];
      if (Array.isArray(given)) body[m.writeName] = given.map((name) => this.resolve(resource, key, m.name, m.target, String(name)));
    }
    return { body, walks };
  }
}

/** Seeds the demo data; prints what it did. */
export async function seedDemo(db: Knex, registry: Registry, seed: number): Promise<void> {
  const { added, present, resources } = await new DemoSeed(db, registry, seed).run();
  process.stdout.write(`Demo data (seed ${seed}) in ${resources} resources: ${added} records added${present ? `, ${present} already there` : ''}.\n`);
}
