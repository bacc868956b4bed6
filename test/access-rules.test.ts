/**
 * Every resource that declares access rules, driven by the registry: the records and users a rule
 * needs are derived from its structure (support/access-model.ts), so a newly declared rule is
 * tested without a line of test code. For each thing a rule reads (a field, an empty key, a period,
 * a user or group link, also on the records it reaches), two records are built that differ in it
 * alone and fall on different sides of the rule. The users are non-superusers holding every model
 * permission: A, whom the records link to as the search chooses, V (change rules), and U, linked to
 * nothing. Each sees exactly the records the model says, in lists and details; U gets 404 to PATCH
 * and DELETE of a record it cannot see, and `Invalid pk` when naming it as a foreign key. Each user
 * who sees a record gets 200 or 403 to PATCH and DELETE as the change rule says.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import { AccessModel, describeWorld, flips, type Who, type World } from './support/access-model.js';
import { WorldBuilder } from './support/access-worlds.js';
import { invalidPk, makeUser, type TestUser } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

describe('declared access rules of every resource (registry-driven)', function () {
  this.timeout(300_000);
  const users = {} as Record<Who, TestUser>;
  let samples: Samples;
  let builder: WorldBuilder;

  before(async () => {
    const everything = [...registry.permissionNames];
    for (const who of ['A', 'V', 'U'] as const) users[who] = await makeUser({ permissions: everything });
    samples = new Samples(suite().admin);
    builder = new WorldBuilder(suite().admin, suite().service.db, samples, users, suite().adminId);
  });

  const ids = async (who: Who, resource: Resource): Promise<number[]> => {
    const res = await users[who].client.get(resource.path);
    expect(res.status, res.text).to.equal(200);
    return (res.body as { id: number }[]).map((r) => r.id);
  };

  /** POSTs a record naming `id` under a foreign key to `resource`, as `who`; answers the errors under that key. */
  const naming = async (resource: Resource, id: number, who: Who): Promise<unknown> => {
    const referrer = resource.referencedBy.find((r) => !r.fk.spec.readOnly);
    if (!referrer) return undefined;
    const { writeName } = referrer.fk;
    const body = await samples.body(referrer.resource, { values: { [writeName]: id } });
    const res = await users[who].client.post(referrer.resource.path, body);
    return res.status === 201 ? undefined : (res.body as Record<string, unknown>)[writeName];
  };

  /** The distinct worlds of the pairs, each with what makes it, for failure messages. */
  const worldsOf = (model: AccessModel, pairs: Map<string, [World, World]>): [World, string][] => {
    expect(pairs.size, `nothing ${model.root.resource.key}'s rules read can be varied`).to.be.greaterThan(0);
    const seen = new Map<string, [World, string]>();
    for (const [key, pair] of pairs) {
      for (const world of pair) seen.set(JSON.stringify([...world]), [world, `varying ${key.replace(/\|/g, ' ')}; world: ${describeWorld(model, world)}`]);
    }
    return [...seen.values()];
  };

  for (const resource of registry.resources.filter((r) => r.access.view || r.access.change)) {
    describe(resource.key, () => {
      if (resource.access.view) {
        it('shows each record to the users the view rule admits and to no one else', async () => {
          const model = new AccessModel(resource, ['A']);
          const view = model.compile(model.root, resource.access.view!);
          const built: [number, World, string][] = [];
          for (const [world, what] of worldsOf(model, flips(model, ['A', 'U'], () => true, view))) built.push([(await builder.build(model.root, world)).id, world, what]);
          let named = false;
          for (const who of ['A', 'U'] as const) {
            const listed = await ids(who, resource);
            for (const [id, world, what] of built) {
              const sees = view(world, who);
              expect(listed.includes(id), `${who} lists ${id}; ${what}`).to.equal(sees);
              for (const method of sees ? ['GET'] : ['GET', 'PATCH', 'DELETE']) {
                const res = await users[who].client.request(method, `${resource.path}/${id}`, method === 'PATCH' ? { body: {} } : {});
                expect(res.status, `${who} ${method} ${id}; ${what}`).to.equal(sees ? 200 : 404);
              }
              if (who === 'U' && !sees && view(world, 'A') && !named) {
                named = true;
                if (resource.referencedBy.some((r) => !r.fk.spec.readOnly)) expect(await naming(resource, id, 'U'), `U names ${id}; ${what}`).to.deep.equal(invalidPk(id));
                expect(await naming(resource, id, 'A'), `A names ${id}; ${what}`).to.equal(undefined);
              }
            }
          }
          expect(named, 'some record is hidden from U and shown to A').to.equal(true);
        });
      }
      if (resource.access.change) {
        it('lets each user who sees a record change and delete it as the change rule says', async () => {
          const model = new AccessModel(resource, ['A', 'V']);
          const view = resource.access.view ? model.compile(model.root, resource.access.view) : () => true;
          const change = model.compile(model.root, resource.access.change!);
          const seeing = (w: World) => view(w, 'A') && view(w, 'V');
          const outcomes = new Set<boolean>();
          for (const [world, what] of worldsOf(model, flips(model, ['A', 'V'], seeing, change))) {
            const path = `${resource.path}/${(await builder.build(model.root, world)).id}`;
            for (const who of ['A', 'V'] as const) {
              outcomes.add(change(world, who));
              const res = await users[who].client.patch(path, {});
              expect(res.status, `${who} PATCH ${path}; ${what}: ${res.text}`).to.equal(change(world, who) ? 200 : 403);
            }
            for (const who of (['A', 'V'] as const).filter((u) => !change(world, u))) expect((await users[who].client.delete(path)).status, `${who} DELETE ${path}; ${what}`).to.equal(403);
            const changer = (['A', 'V'] as const).find((u) => change(world, u));
            if (changer) expect((await users[changer].client.delete(path)).status, `${changer} DELETE ${path}; ${what}`).to.equal(204);
            expect((await suite().admin.get(path)).status).to.equal(changer ? 404 : 200);
          }
          expect([...outcomes], 'the rule both admits and refuses').to.have.members([true, false]);
        });
      }
    });
  }
});
