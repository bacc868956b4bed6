/**
 * Every declared resource, driven by the registry: list, create with a valid body, detail,
 * replace and update (conditional on the record's ETag), each declared filter (the list keeps a
 * record that matches and leaves out one that does not), delete, and a 400 naming each missing
 * required field. A newly declared resource is covered here without a line of test code.
 */
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Resource } from '../engine/registry/resource.js';
import { filterCases, type FilterCase } from './support/filter-cases.js';
import { FilterRecordMaker } from './support/filter-records.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

describe('every declared resource (registry-driven)', () => {
  let filterRecords: FilterRecordMaker;
  before(() => {
    filterRecords = new FilterRecordMaker(suite().admin, suite().service.db, new Samples(suite().admin));
  });

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

      it('filters by every declared filter: the matching record in, the other out', async () => {
        const { admin, service } = suite();
        const { filters } = service.app.services.get(resource.key)!;
        const records = await filterRecords.make(live(), filters);
        const problems: string[] = [];
        const check = async (param: string, { value, match, miss }: FilterCase): Promise<void> => {
          const res = await admin.get(`${resource.path}?${param}=${encodeURIComponent(value)}`);
          if (res.status !== 200) {
            problems.push(`${param}=${value}: ${res.status} ${res.text}`);
            return;
          }
          const ids = (res.body as { id: number }[]).map((r) => r.id);
          if (!ids.includes(records[match]!.id)) problems.push(`${param}=${value} leaves out record ${match}, which matches`);
          if (ids.includes(records[miss]!.id)) problems.push(`${param}=${value} keeps record ${miss}, which does not match`);
        };
        const checks: Promise<void>[] = [];
        for (const f of filters) {
          const cases = filterCases(live(), f, records);
          if (typeof cases === 'string') problems.push(`${f.param} cannot be exercised: ${cases}`);
          else checks.push(...cases.map((c) => check(f.param, c)));
        }
        // independent reads: together they take a fraction of the time one after another takes
        await Promise.all(checks);
        expect(problems.sort()).to.deep.equal([]);
      });

      it('replaces with PUT of its own GET body, and updates with PATCH, each under If-Match of the tag it was last served with', async () => {
        const { admin } = suite();
        const path = `${resource.path}/${record.id}`;
        const tag = (await admin.get(path)).headers.get('etag')!;
        const put = await admin.put(path, record, { headers: { 'If-Match': tag } });
        expect(put.status, put.text).to.equal(200);
        expect(put.headers.get('etag')).to.equal((await admin.get(path)).headers.get('etag'));
        const text = live().fields.find((f) => f.writable && (f.spec.type === 'string' || f.spec.type === 'text') && !f.spec.unique);
        const change = text ? { [text.name]: 'Changed' } : { remote_key: `rk-${record.id}-${resource.table}` };
        // the tag before the PUT is stale: its modified changed
        const stale = await admin.patch(path, change, { headers: { 'If-Match': tag } });
        expect([stale.status, stale.body], stale.text).to.deep.equal([412, { detail: 'Precondition failed.' }]);
        const patch = await admin.patch(path, change, { headers: { 'If-Match': put.headers.get('etag')! } });
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
