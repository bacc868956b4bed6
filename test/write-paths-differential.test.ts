/**
 * The one statement and the check path answer every create alike (issue 23's differential harness,
 * kept until the check path is gone). For every resource whose creates take the statement, random
 * bodies (a complete sample with fields dropped, nulled, blanked, mistyped, set out of range,
 * pointing at missing records, at records under another parent, at hidden ones, states anywhere)
 * are sent twice: as they come, which takes the statement, and with an `Idempotency-Key`, whose
 * request transaction the statement does not join, so the check path answers. Status and body must
 * be the same (the created records' own ids, times and unique values aside), and both create or
 * neither.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { writePathOf } from '../engine/crud/write-paths.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import type { Client } from './support/client.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();
const RUNS = 6;
const MISSING = 2147483647;

/** What a key of a sample body may become. */
const DROP = Symbol('drop');
const variants = (value: unknown, extra: readonly unknown[]): fc.Arbitrary<unknown> =>
  fc.constantFrom(value, value, value, DROP, null, '', 'x', 0, -1, MISSING, [MISSING], [], true, { a: 1 }, ...extra);

/** The body with the values of unique fields changed (same length), so a second create of it does not collide with the first. */
function otherUniques(resource: Resource, body: Record<string, unknown>): Record<string, unknown> {
  const unique = new Set(['remote_key', ...resource.fields.filter((f) => f.spec.unique).map((f) => f.name)]);
  const changed = (v: string) => (v.length ? `${v.charAt(0) === 'q' ? 'r' : 'q'}${v.slice(1)}` : v);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, unique.has(k) && typeof v === 'string' ? changed(v) : v]));
}

/** An answer as compared: a created record's own id, uuid, times and unique values masked. */
function comparable(resource: Resource, status: number, text: string): unknown {
  if (status !== 201) return [status, text];
  const own = new Set(['id', 'uuid', 'created', 'modified', 'remote_key', ...resource.fields.filter((f) => f.spec.unique).map((f) => f.name)]);
  return [status, Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, unknown>).filter(([k]) => !own.has(k)))];
}

async function bothPaths(client: Client, resource: Resource, body: Record<string, unknown>): Promise<void> {
  const statement = await client.post(resource.path, body);
  const checks = await client.post(resource.path, otherUniques(resource, body), { headers: { 'Idempotency-Key': unique('diff') } });
  const label = `${resource.path} ${JSON.stringify(body)}`;
  expect(comparable(resource, checks.status, checks.text), label).to.deep.equal(comparable(resource, statement.status, statement.text));
}

/** Random bodies from a complete sample of `resource`, with `extra` candidate values for every key. */
const bodies = (sample: Record<string, unknown>, extra: readonly unknown[]) =>
  fc
    .record(Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, variants(v, extra)])))
    .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== DROP)));

describe('the one statement and the check path answer creates alike', function () {
  this.timeout(300_000);

  const statementResources = registry.resources.filter((r) => writePathOf(r, registry.resources) !== 'checks');

  it('for every resource whose creates take the statement, as a superuser', async () => {
    const { admin } = suite();
    const samples = new Samples(admin);
    for (const resource of statementResources) {
      const sample = await samples.body(resource, { complete: true });
      const states = resource.fields.flatMap((f) => (f.spec.type === 'state' ? f.spec.values : []));
      await fc.assert(
        fc.asyncProperty(bodies(sample, states), (body) => bothPaths(admin, resource, body)),
        { numRuns: RUNS, seed: 23 },
      );
    }
  });

  describe('as a user who sees some records and not others', () => {
    let member: TestUser;
    let visible: { tracker: number; category: number; elsewhere: number };
    let hidden: { tracker: number; category: number };

    before(async () => {
      const { admin } = suite();
      const team = await created(admin, '/api/customgroup', { name: unique('diff') });
      member = await makeUser({ permissions: ['issues.view_issue', 'issues.add_issue', 'issues.view_tracker', 'issues.view_issuecategory'], groupIds: [team.id] });
      const tracker = await created(admin, '/api/issue/tracker', { title: unique('seen'), visibility: 'protected', team_ids: [team.id] });
      const other = await created(admin, '/api/issue/tracker', { title: unique('other') });
      const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
      const category = (t: number) => created(admin, '/api/issue/category', { title: unique('c'), tracker_id: t });
      visible = { tracker: tracker.id, category: (await category(tracker.id)).id, elsewhere: (await category(other.id)).id };
      hidden = { tracker: secret.id, category: (await category(secret.id)).id };
    });

    it('answers issue creates alike, references visible, hidden, missing or under another tracker', async () => {
      const resource = registry.get('issue/issue');
      const sample = { title: 'seen', tracker_id: visible.tracker, category_ids: [visible.category], deadline: '2026-12-01', state: 'new' };
      const ids = [visible.tracker, hidden.tracker, visible.category, visible.elsewhere, hidden.category];
      const refs = [...ids, [visible.category, visible.elsewhere], [hidden.category, visible.category, MISSING], [visible.category, visible.category]];
      await fc.assert(
        fc.asyncProperty(bodies(sample, [...refs, 'pending', 'soon']), (body) => bothPaths(member.client, resource, body)),
        { numRuns: 60, seed: 23 },
      );
    });
  });
});
