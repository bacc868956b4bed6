/**
 * `manage seed --demo`: the modules' declared demo company on a fresh database, checked from the
 * registry (every resource, every issue state), repeatable (the same seed on another database
 * gives the same records; a second run adds nothing) and accepted back by the API's own validation.
 */
import { expect } from 'chai';
import { createLogger } from '../engine/log.js';
import { loadRegistry, type Registry } from '../engine/registry/registry.js';
import { startService } from '../engine/service.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { testConfig } from './support/hooks.js';
import { manage } from './support/processes.js';

type Served = Record<string, unknown> & { id: number; remote_key: string | null };

/** `work` with a client of a service on `db` and a superuser's token. */
async function withClient<T>(db: TestDatabase, work: (client: Client, token: string) => Promise<T>): Promise<T> {
  const token = (await manage(db, 'createtoken', '--username', 'demo-admin')).stdout.trim();
  const service = await startService(testConfig(db), createLogger('silent'), { quiet: true });
  try {
    return await work(new Client(service.url), token);
  } finally {
    await service.close();
  }
}

/** Every resource's records as the API serves them to a superuser, by resource key. */
function servedRecords(db: TestDatabase, registry: Registry): Promise<Map<string, Served[]>> {
  return withClient(db, async (client, token) => {
    const records = new Map<string, Served[]>();
    for (const r of registry.resources) {
      const res = await client.get(`${r.path}?ordering=id`, { token });
      expect(res.status, `${r.key}: ${res.text.slice(0, 200)}`).to.equal(200);
      records.set(r.key, res.body as Served[]);
    }
    return records;
  });
}

/** A record without what differs between two databases by construction: its uuid and its timestamps. */
const comparable = ({ uuid: _uuid, created: _created, modified: _modified, ...rest }: Served) => rest;

describe('demo data (seed --demo)', function () {
  this.timeout(300_000);
  let registry: Registry;
  const dbs: TestDatabase[] = [];
  let first: Map<string, Served[]>;

  before(async () => {
    registry = await loadRegistry();
    for (let k = 0; k < 2; k++) {
      const db = await createTestDatabase();
      dbs.push(db);
      const admin = await manage(db, 'createsuperuser', '--username', 'demo-admin', '--password', 'long-enough-1');
      expect(admin.code, admin.stderr).to.equal(0);
      const seeded = await manage(db, 'seed', '--demo', '--seed', '7');
      expect(seeded.code, seeded.stderr).to.equal(0);
      expect(seeded.stdout).to.match(/^Demo data \(seed 7\) in \d+ resources: \d+ records added\.\n$/);
    }
    first = await servedRecords(dbs[0]!, registry);
  });
  after(async () => Promise.all(dbs.map((db) => db.drop())));

  it('gives every declared resource at least one demo record', () => {
    const empty = registry.resources.filter((r) => !first.get(r.key)!.some((record) => record.remote_key?.startsWith(`demo:${r.key}:`)));
    expect(empty.map((r) => r.key)).to.deep.equal([]);
  });

  it('has issues in every state of their workflow, reached through declared transitions', async () => {
    const spec = registry.get('issue/issue').fields.find((f) => f.name === 'state')!.spec;
    if (spec.type !== 'state') throw new Error('issue/issue has no state field');
    const issues = first.get('issue/issue')!;
    const states = new Set(issues.map((issue) => issue.state));
    expect([...spec.values].filter((s) => !states.has(s))).to.deep.equal([]);
    const problems = await withClient(dbs[0]!, async (client, token) => {
      const found: string[] = [];
      for (const issue of issues) {
        const walk = (await client.get(`/api/issue/issue/${issue.id}/transitions`, { token })).body as { field: string; from: string | null; to: string }[];
        const moves = walk.map((m) => `${m.from ?? 'created'} → ${m.to}`).join(', ');
        const declared = walk.every((m, k) => (k === 0 ? m.from === null && spec.initial.includes(m.to) : m.from === walk[k - 1]!.to && (spec.transitions[m.from!] ?? []).includes(m.to)));
        if (!declared || walk.at(-1)?.to !== issue.state) found.push(`${String(issue.title)} (${String(issue.state)}): ${moves}`);
      }
      return found;
    });
    expect(problems).to.deep.equal([]);
  });

  it('writes the same records for the same seed, and a second run adds nothing', async () => {
    const again = await manage(dbs[0]!, 'seed', '--demo', '--seed', '7');
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/: 0 records added, \d+ already there\.\n$/);
    const second = await servedRecords(dbs[1]!, registry);
    for (const r of registry.resources) {
      // the superuser each database has from createsuperuser is no demo record
      const demo = (records: Served[]) => records.filter((x) => x.remote_key?.startsWith('demo:')).map(comparable);
      expect(demo(second.get(r.key)!), r.key).to.deep.equal(demo(first.get(r.key)!));
    }
  });

  it('is accepted back by the API: every resource, a record PUT as it was read answers 200', async () => {
    const refused = await withClient(dbs[0]!, async (client, token) => {
      const found: string[] = [];
      for (const r of registry.resources) {
        // the last demo record: the one most likely to have been moved along its lifecycle, or to name a parent
        const record = first.get(r.key)!.filter((x) => x.remote_key?.startsWith('demo:')).at(-1)!;
        const put = await client.put(`${r.path}/${record.id}`, record, { token });
        if (put.status !== 200) found.push(`${r.key}: ${put.status} ${put.text.slice(0, 200)}`);
      }
      return found;
    });
    expect(refused).to.deep.equal([]);
  });

  it('refuses a seed that is not a whole number, and --seed without --demo, naming the fix', async () => {
    const bad = await manage(dbs[0]!, 'seed', '--demo', '--seed', 'x');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('--seed takes a whole number');
    const alone = await manage(dbs[0]!, 'seed', '--seed', '3');
    expect(alone.code).to.equal(2);
    expect(alone.stderr).to.include('use it with --demo');
    const both = await manage(dbs[0]!, 'seed', '--demo', '--issues', '3');
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include('use one or the other');
  });
});
