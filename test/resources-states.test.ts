/**
 * Every state machine of every resource, driven by the registry: each declared transition
 * succeeds from a record brought to its source state along allowed moves, undeclared moves are
 * refused with the contract's message, and final states accept no move at all.
 */
import { expect } from 'chai';
import type { StateField } from '../engine/declare/fields.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

/** The shortest route of allowed moves from an initial state to each state: `[initial, …moves]`. */
function routesOf(spec: StateField): Map<string, string[]> {
  const routes = new Map(spec.initial.map((s) => [s, [s]]));
  const queue = [...spec.initial];
  for (let from = queue.shift(); from !== undefined; from = queue.shift()) {
    for (const to of spec.transitions[from] ?? []) {
      if (routes.has(to)) continue;
      routes.set(to, [...routes.get(from)!, to]);
      queue.push(to);
    }
  }
  return routes;
}

const refusal = (from: string, to: string) => `Transition from "${from}" to "${to}" is not allowed.`;

describe('state machines (registry-driven)', () => {
  for (const resource of registry.resources) {
    for (const field of resource.fields) {
      const spec = field.spec;
      if (spec.type !== 'state') continue;
      const allowed = (from: string) => spec.transitions[from] ?? [];
      const finals = spec.values.filter((s) => allowed(s).length === 0);

      describe(`${resource.path} ${field.name}`, () => {
        const routes = routesOf(spec);
        let body: Record<string, unknown>;
        const live = (): Resource => suite().service.app.services.get(resource.key)!.resource;

        before(async () => {
          body = await new Samples(suite().admin).body(live());
        });

        /** A new record brought to `state` along its route, each move answered 200. */
        async function recordIn(state: string): Promise<any> {
          const route = routes.get(state);
          expect(route, `"${state}" cannot be reached from an initial state`).to.not.equal(undefined);
          const record = await created(suite().admin, resource.path, { ...body, [field.name]: route![0] });
          for (const step of route!.slice(1)) {
            const res = await suite().admin.patch(`${resource.path}/${record.id}`, { [field.name]: step });
            expect(res.status, `${step}: ${res.text}`).to.equal(200);
          }
          return (await suite().admin.get(`${resource.path}/${record.id}`)).body;
        }

        it('allows every declared transition', async () => {
          for (const from of spec.values) {
            for (const to of allowed(from)) {
              const record = await recordIn(from);
              const res = await suite().admin.patch(`${resource.path}/${record.id}`, { [field.name]: to });
              expect(res.status, `${from} → ${to}: ${res.text}`).to.equal(200);
              expect(res.body[field.name]).to.equal(to);
            }
          }
        });

        it('refuses the undeclared moves out of a state with the contract message', async () => {
          const from = spec.values.find((s) => spec.values.some((to) => to !== s && !allowed(s).includes(to)));
          if (from === undefined) expect.fail('every move is declared: the lifecycle restricts nothing');
          const record = await recordIn(from);
          for (const to of spec.values.filter((s) => s !== from && !allowed(from).includes(s))) {
            const res = await suite().admin.patch(`${resource.path}/${record.id}`, { [field.name]: to });
            expect(res.status, `${from} → ${to}`).to.equal(400);
            expect(res.body).to.deep.equal({ [field.name]: [refusal(from, to)] });
          }
          expect((await suite().admin.get(`${resource.path}/${record.id}`)).body).to.deep.equal(record);
        });

        if (finals.length) {
          it(`accepts no move out of its final states (${finals.join(', ')})`, async () => {
            for (const final of finals) {
              const record = await recordIn(final);
              for (const to of spec.values.filter((s) => s !== final)) {
                const res = await suite().admin.patch(`${resource.path}/${record.id}`, { [field.name]: to });
                expect(res.status, `${final} → ${to}`).to.equal(400);
                expect(res.body).to.deep.equal({ [field.name]: [refusal(final, to)] });
              }
              expect((await suite().admin.patch(`${resource.path}/${record.id}`, { [field.name]: final })).status, 'staying is a no-op').to.equal(200);
            }
          });
        }
      });
    }
  }
});
