/**
 * `manage seed`: demo data through the same validation and writes as the API. Every resource gets
 * a few records (or as many as its declared seed option asks for), parents first, linked to what
 * exists, and moved along its lifecycle as far as its rules allow, so every list has something
 * to show. A one-line progress bar runs on stderr.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { createAjv } from '../crud/validator.js';
import { exampleBody } from '../crud/examples.js';
import { ResourceService } from '../crud/service.js';
import { ValidationError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import type { Resource } from '../registry/resource.js';
import { CommandError } from './errors.js';

const PER_RESOURCE = 3;
/** Users and groups come from the manage commands, not from demo data. */
const NOT_SEEDED = new Set(['user', 'customgroup']);

/** The seed options resources declare (`--issues`), with their defaults. */
export function seedOptions(registry: Registry): Map<string, { resource: Resource; default: number }> {
  return new Map(registry.resources.flatMap((r) => (r.declaration.seed ? [[r.declaration.seed.option, { resource: r, default: r.declaration.seed.default }] as const] : [])));
}

function progress(total: number) {
  let done = 0;
  return {
    tick(label: string) {
      done++;
      const width = 30;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total} ${label.padEnd(40).slice(0, 40)}`);
    },
    end: () => void process.stderr.write('\n'),
  };
}

/** `resources` ordered so that every required parent among them comes before its children. */
function parentsFirst(resources: readonly Resource[]): Resource[] {
  const ordered: Resource[] = [];
  const seen = new Set<string>();
  const included = new Set(resources);
  const visit = (r: Resource) => {
    if (seen.has(r.key)) return;
    seen.add(r.key);
    for (const fk of r.foreignKeys) if (fk.required && fk.target !== r && included.has(fk.target)) visit(fk.target);
    ordered.push(r);
  };
  resources.forEach(visit);
  return ordered;
}

export async function seed(db: Knex, registry: Registry, counts: ReadonlyMap<string, number>): Promise<void> {
  const adminRow = (await db('users').where({ is_superuser: true, is_active: true }).orderBy('id').first('id', 'username')) as
    | { id: number; username: string }
    | undefined;
  if (!adminRow) throw new CommandError('seed needs a superuser: run createsuperuser first.');
  const admin: Principal = { id: adminRow.id, username: adminRow.username, isSuperuser: true, permissions: new Set(), groupIds: [] };
  const ajv = createAjv();
  const created = new Map<string, number[]>([['user', [admin.id]]]);
  const pool = (key: string) => created.get(key) ?? [];
  const resources = parentsFirst(registry.resources.filter((r) => !NOT_SEEDED.has(r.key)));
  const countOf = (r: Resource) => (r.declaration.seed ? (counts.get(r.declaration.seed.option) ?? r.declaration.seed.default) : PER_RESOURCE);
  const bar = progress(resources.reduce((sum, r) => sum + countOf(r), 0));

  for (const resource of resources) {
    const service = new ResourceService(resource, db, ajv, registry);
    for (let n = 1; n <= countOf(resource); n++) {
      const body = exampleBody(resource, n);
      for (const fk of resource.foreignKeys) {
        const candidates = fk.target === resource ? [] : pool(fk.target.key);
        if (candidates.length) body[fk.writeName] = candidates[n % candidates.length];
      }
      for (const m of resource.manyToMany) {
        if (m.spec.privileged || m.spec.readOnly) continue;
        const same = m.spec.sameParent;
        const local = same && resource.foreignKeys.find((fk) => fk.name === same.local)!;
        const remote = same && m.target.foreignKeys.find((fk) => fk.name === same.remote)!;
        const ids =
          local && remote
            ? ((await db(m.target.table).where(remote.column, body[local.writeName] as number).orderBy('id').limit(2).pluck('id')) as number[])
            : pool(m.target.key).slice(0, 1 + (n % 2));
        body[m.writeName] = ids;
      }
      const record = await service.create(admin, body);
      created.set(resource.key, [...pool(resource.key), record.id as number]);
      await walkLifecycle(service, admin, record, n);
      bar.tick(resource.key);
    }
  }
  bar.end();
  process.stdout.write(`Seeded ${resources.length} resources: ${resources.map((r) => `${pool(r.key).length} ${r.key}`).join(', ')}.\n`);
}

/** Moves the n-th record `n` steps along the first transition of each state, while its rules allow. */
async function walkLifecycle(service: ResourceService, admin: Principal, record: Record<string, unknown>, n: number): Promise<void> {
  for (const f of service.resource.fields) {
    if (f.spec.type !== 'state') continue;
    let state = record[f.name] as string;
    const visited = new Set([state]);
    for (let step = 0; step < n % (f.spec.values.length + 1); step++) {
      const next = (f.spec.transitions[state] ?? []).find((s) => !visited.has(s));
      if (!next) break;
      try {
        await service.update(admin, record.id as number, { [f.name]: next }, true);
      } catch (err) {
        // a record rule (e.g. answers required before submitting) ends the walk here
        if (err instanceof ValidationError) break;
        throw err;
      }
      visited.add(next);
      state = next;
    }
  }
}
