/**
 * `manage seed`: demo data through the same validation and writes as the API. Trackers with
 * categories and `--issues` issues moving through their workflow, then a handful of records of
 * every other resource, parents first, so every list in the service has something to show.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { createAjv } from '../crud/validator.js';
import { exampleBody } from '../crud/examples.js';
import { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';
import type { Resource } from '../registry/resource.js';
import { CommandError } from './errors.js';

const PER_RESOURCE = 3;

/** A one-line progress bar on stderr (stdout stays clean for scripts). */
function progress(total: number) {
  let done = 0;
  const draw = (label: string) => {
    const width = 30;
    const filled = Math.round((done / Math.max(total, 1)) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total} ${label.padEnd(40).slice(0, 40)}`);
  };
  return {
    tick(label: string) {
      done++;
      draw(label);
    },
    end() {
      process.stderr.write('\n');
    },
  };
}

/** Resources ordered so that every required parent comes before its children. */
function parentsFirst(resources: readonly Resource[]): Resource[] {
  const ordered: Resource[] = [];
  const seen = new Set<string>();
  const visit = (r: Resource) => {
    if (seen.has(r.key)) return;
    seen.add(r.key);
    for (const fk of r.foreignKeys) if (fk.required && fk.target !== r) visit(fk.target);
    ordered.push(r);
  };
  resources.forEach(visit);
  return ordered;
}

export async function seed(db: Knex, registry: Registry, opts: { issues: number }): Promise<void> {
  const adminRow = (await db('users').where({ is_superuser: true, is_active: true }).orderBy('id').first('id', 'username')) as
    | { id: number; username: string }
    | undefined;
  if (!adminRow) throw new CommandError('seed needs a superuser: run createsuperuser first.');
  const admin: Principal = { id: adminRow.id, username: adminRow.username, isSuperuser: true, permissions: new Set(), groupIds: [] };
  const ajv = createAjv();
  const service = (key: string) => new ResourceService(registry.get(key), db, ajv, registry.permissionNames);
  const created = new Map<string, number[]>();
  // users come from the commands; issues from --issues below
  const others = parentsFirst(registry.resources.filter((r) => !['user', 'customgroup', 'issue/issue'].includes(r.key)));
  const bar = progress(others.length * PER_RESOURCE + opts.issues);

  for (const resource of others) {
    const svc = service(resource.key);
    for (let n = 1; n <= PER_RESOURCE; n++) {
      const body = exampleBody(resource, n);
      for (const fk of resource.foreignKeys) {
        const pool = fk.target.key === 'user' ? [admin.id] : (created.get(fk.target.key) ?? []);
        if (fk.required || (pool.length && fk.target !== resource)) body[fk.writeName] = pool[n % pool.length] ?? null;
      }
      const record = await svc.create(admin, body);
      created.set(resource.key, [...(created.get(resource.key) ?? []), record.id as number]);
      bar.tick(resource.key);
    }
  }

  const issues = service('issue/issue');
  const trackers = created.get('issue/tracker') ?? [];
  const categories = (await db('issue_category').select('id', 'tracker_id')) as { id: number; tracker_id: number }[];
  const steps = ['pending', 'accepted', 'active', 'effectiveness_check', 'resolved'];
  for (let n = 1; n <= opts.issues; n++) {
    const tracker = trackers[n % trackers.length]!;
    const record = await issues.create(admin, {
      tracker_id: tracker,
      title: `Demo issue ${n}`,
      description: `Reported during the demo (${n}).`,
      deadline: `2026-${String(1 + (n % 12)).padStart(2, '0')}-15`,
      category_ids: categories.filter((c) => c.tracker_id === tracker).slice(0, 1 + (n % 2)).map((c) => c.id),
      assigned_user_id: admin.id,
    });
    for (const state of steps.slice(0, n % (steps.length + 1))) await issues.update(admin, record.id as number, { state }, true);
    bar.tick('issue/issue');
  }
  bar.end();
  process.stdout.write(`Seeded ${others.length} resources with ${PER_RESOURCE} records each and ${opts.issues} issues.\n`);
}
