/**
 * Every declared resource, driven by the registry: list, create with a valid body, detail,
 * replace, update, each declared filter, delete, and a 400 naming each missing required field.
 * A newly declared resource is covered here without a line of test code.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import type { Filter } from '../engine/crud/filters.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

/** A query value the given record must match, or undefined when the record has none to offer. */
function filterValue(record: Record<string, any>, f: Filter): string | undefined {
  const v = record[f.on.key];
  if (f.on.lookup === 'isnull') return String(v === null);
  if (v === null || v === undefined) return undefined;
  switch (f.on.lookup) {
    case 'member':
      return Array.isArray(v) && v.length ? String(v[0]) : undefined;
    case 'icontains':
      return String(v).slice(2, 8).toUpperCase();
    case 'range':
      return `${String(v)},${String(v)}`;
    default:
      return String(v);
  }
}

describe('every declared resource (registry-driven)', () => {
  for (const resource of registry.resources) {
    describe(resource.path, () => {
      let samples: Samples;
      let record: Record<string, any>;
      const live = (): Resource => suite().service.app.services.get(resource.key)!.resource;

      before(async () => {
        samples = new Samples(suite().admin);
        record = await samples.create(live());
      });

      it('creates a record that detail and list return unchanged', async () => {
        const { admin } = suite();
        expect(record.id).to.be.a('number');
        expect(record.uuid).to.match(/^[0-9a-f-]{36}$/);
        const detail = await admin.get(`${resource.path}/${record.id}`);
        expect(detail.status).to.equal(200);
        expect(detail.body).to.deep.equal(record);
        const list = await admin.get(`${resource.path}?ordering=-id`);
        expect(list.status).to.equal(200);
        expect(list.body).to.be.an('array');
        expect(list.body.find((r: any) => r.id === record.id)).to.deep.equal(record);
      });

      it('filters by every declared filter, finding the record', async () => {
        const { admin } = suite();
        const service = suite().service.app.services.get(resource.key)!;
        for (const f of service.filters) {
          const value = filterValue(record, f);
          if (value === undefined) continue;
          const res = await admin.get(`${resource.path}?${f.param}=${encodeURIComponent(value)}`);
          expect(res.status, `${f.param}=${value}: ${res.text}`).to.equal(200);
          expect(res.body.map((r: any) => r.id), `${f.param}=${value}`).to.include(record.id);
        }
      });

      it('replaces with PUT of its own GET body, and updates with PATCH', async () => {
        const { admin } = suite();
        const put = await admin.put(`${resource.path}/${record.id}`, record);
        expect(put.status, put.text).to.equal(200);
        const text = live().fields.find((f) => f.writable && (f.spec.type === 'string' || f.spec.type === 'text') && !f.spec.unique);
        const change = text ? { [text.name]: 'Changed' } : { remote_key: `rk-${record.id}-${resource.table}` };
        const patch = await admin.patch(`${resource.path}/${record.id}`, change);
        expect(patch.status, patch.text).to.equal(200);
        expect(patch.body).to.include(change);
        expect(Date.parse(patch.body.modified)).to.be.at.least(Date.parse(record.modified));
      });

      it('answers 400 naming every missing required field', async () => {
        const res = await suite().admin.post(resource.path, {});
        const required = [
          ...live().fields.filter((f) => f.spec.required && f.writable).map((f) => f.name),
          ...live().foreignKeys.filter((f) => f.required && !f.spec.readOnly).map((f) => f.writeName),
        ];
        if (required.length === 0) {
          expect(res.status, res.text).to.equal(201);
          return;
        }
        expect(res.status).to.equal(400);
        expect(Object.keys(res.body).sort()).to.deep.equal(required.sort());
        for (const name of required) expect(res.body[name]).to.deep.equal(['This field is required.']);
      });

      it('deletes the record', async () => {
        const { admin } = suite();
        const extra = await samples.create(live());
        expect((await admin.delete(`${resource.path}/${extra.id}`)).status).to.equal(204);
        expect((await admin.get(`${resource.path}/${extra.id}`)).status).to.equal(404);
      });
    });
  }
});
