/**
 * The one statement and the check path answer every write alike (issue 23's differential harness,
 * kept until the check path is gone). For every resource whose writes take the statement, random
 * bodies (a complete sample with fields dropped, nulled, blanked, mistyped, set out of range,
 * pointing at missing records, at records under another parent, at hidden ones, states anywhere)
 * are sent to the test service, which writes them in one statement, and to a second service on the
 * same database whose writes all take the check path (`checksOnly`). Creates, and PATCH and PUT of
 * twin records, must get the same status and body (the records' own ids, times and unique values
 * aside), and both write or neither.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { writePathOf } from '../engine/crud/write-paths.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { describeWithServer } from './support/database.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();
const RUNS = 6;
const MISSING = 2147483647;

/** What a key of a sample body may become. */
const DROP = Symbol('drop');
const variants = (value: unknown, extra: readonly unknown[]): fc.Arbitrary<unknown> =>
  fc.constantFrom(value, value, value, DROP, null, '', 'x', 0, -1, MISSING, [MISSING], [], true, { a: 1 }, ...extra);

const uniqueKeys = (resource: Resource): Set<string> => new Set(['remote_key', ...resource.fields.filter((f) => f.spec.unique).map((f) => f.name)]);

/**
 * `body` twice, its unique values made the two sides' own (letters and digits replaced, so each
 * keeps its length and whatever else makes it valid or not; an empty one left out), so neither
 * write collides with the other or with an earlier run's.
 */
function twoSides(resource: Resource, body: Record<string, unknown>): [Record<string, unknown>, Record<string, unknown>] {
  const unique = uniqueKeys(resource);
  const side = () =>
    Object.fromEntries(
      Object.entries(body)
        .filter(([k, v]) => !(unique.has(k) && v === ''))
        .map(([k, v]) => [k, unique.has(k) && typeof v === 'string' ? v.replace(/[a-z0-9]/gi, () => 'abcdefghijklmnopqrstuvwxyz'.charAt(Math.floor(Math.random() * 26))) : v]),
    );
  return [side(), side()];
}

/** `body` with new values in its unique fields, for one more record like it. */
function fresh(resource: Resource, body: Record<string, unknown>): Record<string, unknown> {
  const unique = uniqueKeys(resource);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, unique.has(k) ? `${k}-${++twins}` : v]));
}
let twins = 0;

/** An answer as compared: a written record's own id, uuid, times and unique values masked. */
function comparable(resource: Resource, status: number, text: string): unknown {
  if (status !== 201 && status !== 200) return [status, text];
  const own = new Set(['id', 'uuid', 'created', 'modified', ...uniqueKeys(resource)]);
  return [status, Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, unknown>).filter(([k]) => !own.has(k)))];
}

/** The checks-only twin of `client`: the same credentials, on the service whose writes take the check path. */
let checksService: RunningService;
const twin = (client: Client): Client => new Client(checksService.url, client.token);

/**
 * `body` with each `noOverlap` scope that is the sample's replaced by a new record of its own, so
 * the two sides' periods (the same) do not overlap each other, nor earlier runs'.
 */
async function apart(resource: Resource, body: Record<string, unknown>, sample: Record<string, unknown>): Promise<Record<string, unknown>> {
  const own = { ...body };
  for (const rule of resource.rules) {
    if (rule.kind !== 'noOverlap') continue;
    const fk = resource.foreignKeys.find((r) => r.name === rule.scope)!;
    if (fk.writeName in own && own[fk.writeName] === sample[fk.writeName]) own[fk.writeName] = (await new Samples(suite().admin).create(fk.target)).id;
  }
  return own;
}

async function bothCreates(client: Client, resource: Resource, body: Record<string, unknown>, sample: Record<string, unknown>): Promise<void> {
  const [mine, theirs] = await Promise.all(twoSides(resource, body).map((side) => apart(resource, side, sample)));
  const statement = await client.post(resource.path, mine);
  const checks = await twin(client).post(resource.path, theirs);
  expect(comparable(resource, checks.status, checks.text), `POST ${resource.path} ${JSON.stringify(body)}`).to.deep.equal(comparable(resource, statement.status, statement.text));
}

/** DELETE of twin records made by `make` (or of `id` on both). */
async function bothDeletes(client: Client, resource: Resource, make: () => Promise<number>, headers: Record<string, string> = {}, id?: number): Promise<void> {
  const [one, other] = [id ?? (await make()), id ?? (await make())];
  const statement = await client.delete(`${resource.path}/${one}`, { headers });
  const checks = await twin(client).delete(`${resource.path}/${other}`, { headers });
  const answer = (res: { status: number; text: string }, own: number) => [res.status, res.text.replaceAll(String(own), '<id>')];
  expect(answer(checks, other), `DELETE ${resource.path}/${one}`).to.deep.equal(answer(statement, one));
}

/** `body` sent as PUT or PATCH to twin records made from `sample` (or to `id` on both, a record that is not there). */
async function bothChanges(
  client: Client,
  resource: Resource,
  sample: Record<string, unknown>,
  method: 'put' | 'patch',
  body: Record<string, unknown>,
  id?: number,
  /** Who makes the twins (their creator, whom rules may name). */
  maker: Client = suite().admin,
): Promise<void> {
  const path = async () => `${resource.path}/${id ?? (await created(maker, resource.path, await apart(resource, fresh(resource, sample), sample))).id}`;
  const [one, other] = [await path(), await path()];
  const [mine, theirs] = await Promise.all(twoSides(resource, body).map((side) => apart(resource, side, sample)));
  const statement = await client[method](one, mine);
  const checks = await twin(client)[method](other, theirs);
  expect(comparable(resource, checks.status, checks.text), `${method} ${one} ${JSON.stringify(body)}`).to.deep.equal(comparable(resource, statement.status, statement.text));
}

/** Random bodies from a complete sample of `resource`, with `extra` candidate values for every key. */
const bodies = (sample: Record<string, unknown>, extra: readonly unknown[]) =>
  fc
    .record(Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, variants(v, extra)])))
    .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== DROP)));

describeWithServer('the one statement and the check path answer writes alike', 'a second service on the same database', function () {
  this.timeout(600_000);

  const statementResources = registry.resources.filter((r) => writePathOf(r, registry.resources) !== 'checks');

  before(async () => {
    checksService = await startService(testConfig(suite().database, { checksOnly: true, webhooks: { dispatch: false } }), createLogger('silent'), { quiet: true });
  });
  after(async () => checksService?.close());

  it('for every resource whose writes take the statement, as a superuser: creates, PUT and PATCH', async () => {
    const { admin } = suite();
    const samples = new Samples(admin);
    for (const resource of statementResources) {
      const sample = await samples.body(resource, { complete: true });
      const states = resource.fields.flatMap((f) => (f.spec.type === 'state' ? f.spec.values : []));
      await fc.assert(
        fc.asyncProperty(bodies(sample, states), (body) => bothCreates(admin, resource, body, sample)),
        { numRuns: RUNS, seed: 23 },
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('put' as const, 'patch' as const), bodies(sample, states), fc.constantFrom(undefined, undefined, undefined, MISSING), (method, body, id) =>
          bothChanges(admin, resource, sample, method, body, id),
        ),
        { numRuns: RUNS, seed: 23 },
      );
      const make = async () => (await created(admin, resource.path, await apart(resource, fresh(resource, sample), sample))).id as number;
      await bothDeletes(admin, resource, make);
      await bothDeletes(admin, resource, make, {}, MISSING);
      await bothDeletes(admin, resource, make, { 'If-Match': '"stale"' });
    }
  });

  it('refuses a period overlapping another of its scope alike, created or moved there (noOverlap rules)', async () => {
    const { admin } = suite();
    const scoped = statementResources.filter((r) => r.rules.some((rule) => rule.kind === 'noOverlap'));
    expect(scoped).to.not.be.empty;
    for (const resource of scoped) {
      const sample = await new Samples(admin).body(resource, { complete: true });
      const taken = await apart(resource, fresh(resource, sample), sample);
      const first = await created(admin, resource.path, taken);
      const [mine, theirs] = twoSides(resource, fresh(resource, taken));
      const statement = await admin.post(resource.path, mine);
      const checks = await twin(admin).post(resource.path, theirs);
      expect([statement.status, statement.text]).to.deep.equal([checks.status, checks.text]);
      expect(statement.text).to.include(`overlaps ${resource.name} ${first.id as number}`);
      const scopes = Object.fromEntries(resource.foreignKeys.filter((fk) => resource.rules.some((r) => r.kind === 'noOverlap' && r.scope === fk.name)).map((fk) => [fk.writeName, taken[fk.writeName]]));
      await bothChanges(admin, resource, sample, 'patch', scopes);
    }
  });

  it('refuses deleting a record that protecting keys still point at alike, naming it', async () => {
    const { admin } = suite();
    const tracker = registry.get('issue/tracker');
    const held = async () => {
      const made = await created(admin, '/api/issue/tracker', { title: unique('held') });
      for (let i = 0; i < 2; i++) await created(admin, '/api/issue/issue', { title: unique('holds'), tracker_id: made.id });
      return made.id as number;
    };
    await bothDeletes(admin, tracker, held);
  });

  it('answers DMS document changes alike for a team member of a protected folder: rules naming the creator or an owner, who may be null', async () => {
    const { admin } = suite();
    const permissions = ['folder', 'document'].flatMap((m) => ['view', 'add', 'change', 'delete'].map((a) => `dms.${a}_${m}`));
    const member = await makeUser({ permissions });
    const folder = await created(admin, '/api/dms/folder', { title: unique('team'), visibility: 'protected', team_member_ids: [member.id] });
    const open = await created(admin, '/api/dms/folder', { title: unique('open') });
    const document = registry.get('dms/document');
    const sample = { title: 'doc', folder_id: folder.id, valid_from: '2026-01-01', valid_to: '2026-12-31' };
    const body = bodies(sample, [open.id, member.id, '2025-01-01', 'approved', 'draft']);
    const makers = fc.constantFrom(admin, member.client);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('put' as const, 'patch' as const), body, makers, fc.constantFrom(undefined, member.id), (method, b, maker, owner) =>
        bothChanges(member.client, document, { ...sample, owner_id: owner ?? null }, method, b, undefined, maker),
      ),
      { numRuns: 30, seed: 23 },
    );
    await bothDeletes(member.client, document, async () => (await created(admin, document.path, fresh(document, sample))).id);
    await bothDeletes(member.client, document, async () => (await created(member.client, document.path, fresh(document, sample))).id);
  });

  describe('as a user who sees some records and not others', () => {
    let member: TestUser;
    let visible: { tracker: number; category: number; elsewhere: number };
    let hidden: { tracker: number; category: number };

    before(async () => {
      const { admin } = suite();
      const team = await created(admin, '/api/customgroup', { name: unique('diff') });
      const permissions = ['issues.view_issue', 'issues.add_issue', 'issues.change_issue', 'issues.view_tracker', 'issues.change_tracker', 'issues.view_issuecategory'];
      member = await makeUser({ permissions, groupIds: [team.id] });
      const tracker = await created(admin, '/api/issue/tracker', { title: unique('seen'), visibility: 'protected', team_ids: [team.id] });
      const other = await created(admin, '/api/issue/tracker', { title: unique('other') });
      const secret = await created(admin, '/api/issue/tracker', { title: unique('secret'), visibility: 'confidential' });
      const category = (t: number) => created(admin, '/api/issue/category', { title: unique('c'), tracker_id: t });
      visible = { tracker: tracker.id, category: (await category(tracker.id)).id, elsewhere: (await category(other.id)).id };
      hidden = { tracker: secret.id, category: (await category(secret.id)).id };
    });

    const issueBodies = () => {
      const sample = { title: 'seen', tracker_id: visible.tracker, category_ids: [visible.category], deadline: '2026-12-01', state: 'new' };
      const ids = [visible.tracker, hidden.tracker, visible.category, visible.elsewhere, hidden.category];
      const refs = [...ids, [visible.category, visible.elsewhere], [hidden.category, visible.category, MISSING], [visible.category, visible.category]];
      return { sample, bodies: bodies(sample, [...refs, 'pending', 'resolved', 'soon']) };
    };

    it('answers issue creates alike, references visible, hidden, missing or under another tracker', async () => {
      const { sample, bodies: all } = issueBodies();
      await fc.assert(
        fc.asyncProperty(all, (body) => bothCreates(member.client, registry.get('issue/issue'), body, sample)),
        { numRuns: 40, seed: 23 },
      );
    });

    it('answers issue changes alike: records hidden from them (404), trackers they may not change (403), references and moves', async () => {
      const { sample, bodies: all } = issueBodies();
      const issue = registry.get('issue/issue');
      const secret = { ...sample, tracker_id: hidden.tracker, category_ids: [hidden.category] };
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('put' as const, 'patch' as const), all, fc.constantFrom(sample, sample, secret), (method, body, start) => bothChanges(member.client, issue, start, method, body)),
        { numRuns: 40, seed: 23 },
      );
      await bothDeletes(member.client, issue, async () => (await created(suite().admin, issue.path, secret)).id);
      await bothDeletes(member.client, issue, async () => (await created(suite().admin, issue.path, sample)).id);
      const tracker = registry.get('issue/tracker');
      await bothDeletes(member.client, tracker, async () => (await created(suite().admin, tracker.path, { title: unique('t') })).id);
      await fc.assert(
        fc.asyncProperty(bodies({ title: 'retitled', visibility: 'normal' }, []), (body) => bothChanges(member.client, tracker, { title: unique('t') }, 'patch', body)),
        { numRuns: 10, seed: 23 },
      );
    });
  });
});
