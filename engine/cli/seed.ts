/**
 * `manage seed`: demo data. Every resource gets a few records (or as many as its declared seed
 * option asks for), parents first, linked to what exists (links that must share a parent pick
 * that parent's records), and moved along its lifecycle as far as its rules allow, so every list
 * has something to show. Records go in batches through the bulk writer, which holds them to the
 * declaration as the API does. Progress goes to stderr: a one-line bar at a terminal, plain lines when piped.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { BulkWriter, type NewRecord } from '../crud/bulk.js';
import { createAjv } from '../crud/validator.js';
import { exampleBody } from '../crud/examples.js';
import { ResourceService } from '../crud/service.js';
import { ValidationError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import { findForeignKey, type ManyToManyRef, type Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';
import { CommandError } from './errors.js';

const PER_RESOURCE = 3;
/** Users and groups come from the manage commands, not from demo data. */
const NOT_SEEDED = new Set(['user', 'customgroup']);

/** The seed options resources declare (`--issues`), with their defaults. */
export function seedOptions(registry: Registry): Map<string, { resource: Resource; default: number }> {
  return new Map(registry.resources.flatMap((r) => (r.declaration.seed ? [[r.declaration.seed.option, { resource: r, default: r.declaration.seed.default }] as const] : [])));
}

/**
 * Progress on stderr: at a terminal a one-line bar redrawn in place; piped (a log, CI) one plain line
 * per batch written, since carriage-return frames would pile up there as garbage.
 */
function progress(total: number, out: NodeJS.WriteStream = process.stderr) {
  let done = 0;
  return {
    tick(label: string, count: number) {
      done += count;
      const counted = `${String(done).padStart(String(total).length)}/${total}`;
      if (!out.isTTY) return void out.write(`Seeding: ${counted} records (${label})\n`);
      const width = 30;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counted} ${label.padEnd(40).slice(0, 40)}`);
    },
    end: () => void (out.isTTY && out.write('\n')),
  };
}

/** The seeded resources ordered so that every required parent among them comes before its children. */
export function parentsFirst(resources: readonly Resource[]): Resource[] {
  const ordered: Resource[] = [];
  const seen = new Set<string>();
  const seeded = new Set(resources.map((r) => r.key));
  const visit = (r: Resource) => {
    if (seen.has(r.key)) return;
    seen.add(r.key);
    for (const fk of r.foreignKeys) if (fk.required && fk.target !== r && seeded.has(fk.target.key)) visit(fk.target);
    ordered.push(r);
  };
  resources.forEach(visit);
  return ordered;
}

/** Ids a record may link through `m`: the first two records of its parent when the links must share one, else the first seeded ones. */
type LinkChoice = (body: Record<string, unknown>) => readonly number[];

async function linkChoices(db: Knex, resource: Resource, pools: ReadonlyMap<string, number[]>): Promise<Map<ManyToManyRef, LinkChoice>> {
  const choices = new Map<ManyToManyRef, LinkChoice>();
  for (const m of resource.manyToMany) {
    if (m.spec.privileged || m.spec.readOnly) continue;
    const same = m.spec.sameParent;
    if (!same) {
      const pool = pools.get(m.target.key) ?? [];
      choices.set(m, () => pool);
      continue;
    }
    const local = findForeignKey(resource, same.local)!;
    const remote = q(findForeignKey(m.target, same.remote)!.column);
    const rows = (await db.raw(
      `select parent, json_agg(id order by id) as ids from (select id, ${remote} as parent, row_number() over (partition by ${remote} order by id) as k from ${q(m.target.table)} where ${remote} is not null) x where k <= 2 group by parent`,
    )) as { rows: { parent: number; ids: number[] }[] };
    const byParent = new Map(rows.rows.map((r) => [r.parent, r.ids]));
    choices.set(m, (body) => byParent.get(body[local.writeName] as number) ?? []);
  }
  return choices;
}

/**
 * The states the n-th record moves through: up to n % (states + 1) steps, each along the first
 * transition to a state not visited yet, within the field's declared example states.
 */
function walksOf(resource: Resource, body: Record<string, unknown>, n: number): Record<string, string[]> {
  const walks: Record<string, string[]> = {};
  for (const f of resource.fields) {
    const spec = f.spec;
    if (spec.type !== 'state') continue;
    const stayIn = resource.declaration.exampleStates?.[f.name];
    let state = (body[f.name] as string | undefined) ?? spec.default;
    const visited = new Set([state]);
    const walk: string[] = [];
    for (let step = 0; step < n % (spec.values.length + 1); step++) {
      const next = (spec.transitions[state] ?? []).find((s) => !visited.has(s) && (!stayIn || stayIn.includes(s)));
      if (!next) break;
      walk.push(next);
      visited.add(next);
      state = next;
    }
    walks[f.name] = walk;
  }
  return walks;
}

/** The n-th demo record of `resource`: example values, foreign keys cycling through what exists, links, a lifecycle walk. */
function demoRecord(resource: Resource, n: number, pools: ReadonlyMap<string, number[]>, links: ReadonlyMap<ManyToManyRef, LinkChoice>): NewRecord {
  const body = exampleBody(resource, n);
  for (const fk of resource.foreignKeys) {
    const candidates = fk.target === resource ? [] : (pools.get(fk.target.key) ?? []);
    if (candidates.length) body[fk.writeName] = candidates[n % candidates.length];
  }
  for (const [m, choose] of links) body[m.writeName] = choose(body).slice(0, 1 + (n % 2));
  return { body, walks: walksOf(resource, body, n) };
}

/** The first active superuser, whom seeded records name as their creator. */
export async function seedingPrincipal(db: Knex): Promise<Principal> {
  const adminRow = (await db('users').where({ is_superuser: true, is_active: true }).orderBy('id').first('id', 'username')) as
    | { id: number; username: string }
    | undefined;
  if (!adminRow) throw new CommandError('seed needs a superuser: run createsuperuser first.');
  return { id: adminRow.id, username: adminRow.username, isSuperuser: true, permissions: new Set(), groupIds: [] };
}

export async function seed(db: Knex, registry: Registry, counts: ReadonlyMap<string, number>): Promise<void> {
  const admin = await seedingPrincipal(db);
  const ajv = createAjv();
  // ids of the records seeded so far, per resource: foreign keys and links pick from them
  const pools = new Map<string, number[]>([['user', [admin.id]]]);
  const resources = parentsFirst(registry.resources.filter((r) => !NOT_SEEDED.has(r.key)));
  const countOf = (r: Resource) => (r.declaration.seed ? (counts.get(r.declaration.seed.option) ?? r.declaration.seed.default) : PER_RESOURCE);
  const bar = progress(resources.reduce((sum, r) => sum + countOf(r), 0));

  for (const resource of resources) {
    const writer = new BulkWriter(new ResourceService(resource, db, ajv, registry));
    const links = await linkChoices(db, resource, pools);
    try {
      pools.set(resource.key, await writer.insertAll(admin, countOf(resource), (n) => demoRecord(resource, n, pools, links), (size) => bar.tick(resource.key, size)));
    } catch (err) {
      // a demo record the declaration refuses is a bug of the seed: name it in one line
      if (err instanceof ValidationError) throw new CommandError(`seeding ${resource.key} failed: ${JSON.stringify(err.errors)}`);
      throw err;
    }
  }
  bar.end();
  process.stdout.write(`Seeded ${resources.length} resources: ${resources.map((r) => `${pools.get(r.key)!.length} ${r.key}`).join(', ')}.\n`);
}
