/**
 * Every tree relation of the registry (a foreign key to its own resource declared `tree`): making a
 * record its own parent, or its grandchild its parent, answers 400 under the key's write name and
 * changes nothing, while a move that keeps the tree acyclic is accepted.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

describe('trees refuse cycles (registry-driven)', () => {
  for (const resource of registry.resources) {
    for (const fk of resource.foreignKeys) {
      if (!fk.spec.tree) continue;
      it(`${resource.path} ${fk.name}: neither the record nor its grandchild may become its ${fk.name}`, async () => {
        const { admin } = suite();
        const live = suite().service.app.services.get(resource.key)!.resource;
        const body = await new Samples(admin).body(live);
        const root = await created(admin, resource.path, body);
        const child = await created(admin, resource.path, { ...body, [fk.writeName]: root.id });
        const grandchild = await created(admin, resource.path, { ...body, [fk.writeName]: child.id });
        for (const parent of [root.id, grandchild.id]) {
          const res = await admin.patch(`${resource.path}/${root.id}`, { [fk.writeName]: parent });
          expect(res.status, res.text).to.equal(400);
          expect(res.body).to.deep.equal({ [fk.writeName]: [`Cannot set ${fk.name} to ${parent}: the ${resource.name} would become its own ancestor.`] });
        }
        for (const record of [root, child, grandchild]) expect((await admin.get(`${resource.path}/${record.id}`)).body).to.deep.equal(record);
        const moved = await admin.patch(`${resource.path}/${grandchild.id}`, { [fk.writeName]: root.id });
        expect(moved.status, moved.text).to.equal(200);
        expect(moved.body[fk.name]).to.equal(root.id);
      });
    }
  }
});
