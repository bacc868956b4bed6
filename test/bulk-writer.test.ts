/**
 * The bulk writer (used by `manage seed`) holds a batch to the declaration as the API holds one
 * record, all or nothing: valid records land with their links, final states and state logs, and
 * a batch with one record the API would refuse writes nothing and names that record and field.
 */
import { expect } from 'chai';
import type { Principal } from '../engine/auth/users.js';
import { withoutCapture } from '../engine/audit/actor.js';
import { BulkWriter, type NewRecord } from '../engine/crud/bulk.js';
import { ValidationError } from '../engine/errors.js';
import { created, unique } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const writer = (key: string) => new BulkWriter(suite().service.app.services.get(key)!);
const admin = (): Principal => ({ id: suite().adminId, username: 'admin', isSuperuser: true, permissions: new Set(), groupIds: [] });

/** The ValidationError a batch is refused with, after checking that it wrote nothing. */
async function refusal(key: string, table: string, records: NewRecord[]): Promise<Record<string, string[]>> {
  const count = async () => Number(((await suite().service.db(table).count('* as n')) as { n: string | number }[])[0]!.n);
  const before = await count();
  const err = await writer(key).insert(admin(), records).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(ValidationError);
  expect(await count(), 'rows written by a refused batch').to.equal(before);
  return (err as ValidationError).errors;
}

describe('bulk writer', () => {
  let tracker: { id: number };
  let category: { id: number };
  let foreign: { id: number };

  before(async () => {
    const { admin: client } = suite();
    tracker = await created(client, '/api/issue/tracker', { title: unique('bulk') });
    category = await created(client, '/api/issue/category', { tracker_id: tracker.id, title: unique('mine') });
    const other = await created(client, '/api/issue/tracker', { title: unique('other') });
    foreign = await created(client, '/api/issue/category', { tracker_id: other.id, title: unique('theirs') });
  });

  it('writes valid records with their links, walked states and state logs, as the API then serves them', async () => {
    const ids = await writer('issue/issue').insert(admin(), [
      { body: { tracker_id: tracker.id, title: 'First', category_ids: [category.id] } },
      { body: { tracker_id: tracker.id, title: 'Second' }, walks: { state: ['pending', 'accepted'] } },
    ]);
    expect(ids).to.have.length(2);
    const { admin: client } = suite();
    const [first, second] = await Promise.all(ids.map(async (id) => (await client.get(`/api/issue/issue/${id}`)).body));
    expect(first).to.include({ title: 'First', state: 'new', tracker: tracker.id, created_by: suite().adminId });
    expect(first.categories).to.deep.equal([category.id]);
    expect(second).to.include({ title: 'Second', state: 'accepted' });
    const log = (await client.get(`/api/issue/issue/${ids[1]}/transitions`)).body as { from: string | null; to: string }[];
    expect(log.map((m) => [m.from, m.to])).to.deep.equal([
      [null, 'new'],
      ['new', 'pending'],
      ['pending', 'accepted'],
    ]);
  });

  it('records neither its batches nor its copies in the audit trail (seeded data, not writes of a user)', async function () {
    this.timeout(60_000);
    // past one batch (2,000), the rest are copies of the first
    const ids = await writer('issue/issue').insertAll(admin(), 2_100, (n) => ({ body: { tracker_id: tracker.id, title: `Seeded ${n}` } }), () => undefined);
    expect(ids).to.have.length(2_100);
    const { db } = suite().service;
    try {
      const audited = await db('audit_entries').where({ resource: 'issue/issue' }).whereIn('record_id', ids).count<{ n: string }[]>('* as n');
      expect(Number(audited[0]!.n)).to.equal(0);
    } finally {
      // later suites count the issues of the shared database (and Swagger UI shows their list)
      await db.transaction(async (trx) => {
        await withoutCapture(trx);
        await trx('state_changes').where({ resource: 'issue/issue' }).whereIn('record_id', ids).delete();
        await trx('issue_issue').whereIn('id', ids).delete();
      });
    }
  });

  it('refuses the whole batch for one invalid body, naming the record and field with the API message', async () => {
    const errors = await refusal('issue/issue', 'issue_issue', [
      { body: { tracker_id: tracker.id, title: 'Fine' } },
      { body: { tracker_id: tracker.id, title: '' } },
    ]);
    expect(errors).to.deep.equal({ '1.title': ['This field may not be blank.'] });
  });

  it('refuses a move the lifecycle does not declare, with the contract message', async () => {
    const errors = await refusal('issue/issue', 'issue_issue', [{ body: { tracker_id: tracker.id, title: 'Jumps' }, walks: { state: ['resolved'] } }]);
    expect(errors).to.deep.equal({ '0.state': ['Transition from "new" to "resolved" is not allowed.'] });
    const sneaky = await refusal('issue/issue', 'issue_issue', [{ body: { tracker_id: tracker.id, title: 'Walks its title' }, walks: { title: ['changed'] } }]);
    expect(sneaky).to.deep.equal({ '0.title': ['Not a state field.'] });
  });

  it('refuses a link to a category of another tracker', async () => {
    const errors = await refusal('issue/issue', 'issue_issue', [
      { body: { tracker_id: tracker.id, title: 'Fine', category_ids: [category.id] } },
      { body: { tracker_id: tracker.id, title: 'Crossed', category_ids: [foreign.id] } },
    ]);
    expect(errors).to.deep.equal({ '1.category_ids': [`Category ${foreign.id} does not belong to tracker ${tracker.id}.`] });
  });

  it('refuses a foreign key to nothing, naming the record', async () => {
    const errors = await refusal('issue/issue', 'issue_issue', [{ body: { tracker_id: 2147483647, title: 'Orphan' } }]);
    expect(errors).to.deep.equal({ '0.tracker_id': ['Invalid pk "2147483647" - object does not exist.'] });
  });

  it('refuses periods of one resource that overlap within the batch', async () => {
    const resource = await new Samples(suite().admin).create(suite().service.app.services.get('resources/resources')!.resource);
    const booking = (start: string, end: string): NewRecord => ({ body: { title: 'Room', resource_id: resource.id, start, end } });
    const errors = await refusal('resources/allocations', 'resources_allocations', [
      booking('2026-06-01T08:00:00Z', '2026-06-01T10:00:00Z'),
      booking('2026-06-01T09:00:00Z', '2026-06-01T11:00:00Z'),
    ]);
    expect(Object.keys(errors)).to.have.length(1);
    expect(Object.keys(errors)[0]).to.match(/^[01]\.start$/);
  });

  it('refuses a walk out of draft while a required question is unanswered', async () => {
    const samples = new Samples(suite().admin);
    const template = await samples.create(suite().service.app.services.get('forms/template')!.resource);
    const question = await created(suite().admin, '/api/forms/question', { template_id: template.id, text: 'Why?', type: 'text', required: true });
    const errors = await refusal('forms/form', 'forms_form', [{ body: { template_id: template.id, answers: {} }, walks: { state: ['submitted'] } }]);
    expect(errors).to.deep.equal({ '0.answers': [`Question ${question.id} must be answered.`] });
  });
});
