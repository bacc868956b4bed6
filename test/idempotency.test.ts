/**
 * Idempotent POSTs: a repeat with the same `Idempotency-Key` and body replays the first answer and
 * creates nothing; another body answers 422; concurrent repeats wait for the first; a failed first
 * request leaves the key free; keys are per user, and batch actions honour them too.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, makeUser, unique } from './support/fixtures.js';

const countTrackers = async (title: string): Promise<number> => Number(((await suite().service.db('issue_tracker').where({ title }).count({ n: '*' }).first()) as { n: string }).n);

describe('Idempotency-Key on POST', () => {
  it('replays the first answer for the same key and body, with Idempotent-Replayed, and creates nothing more', async () => {
    const { admin } = suite();
    const key = unique('key');
    const title = unique('once');
    const first = await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } });
    expect(first.status, first.text).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const again = await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } });
    expect(again.status).to.equal(201);
    expect(again.text).to.equal(first.text);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await countTrackers(title)).to.equal(1);
    // without a key, the same body creates again
    expect((await admin.post('/api/issue/tracker', { title })).status).to.equal(201);
    expect(await countTrackers(title)).to.equal(2);
  });

  it('answers 422 for the same key with another body or path, and writes nothing', async () => {
    const { admin } = suite();
    const key = unique('key');
    const title = unique('first');
    expect((await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } })).status).to.equal(201);
    const other = await admin.post('/api/issue/tracker', { title: `${title}-other` }, { headers: { 'Idempotency-Key': key } });
    expect(other.status).to.equal(422);
    expect(other.body).to.deep.equal({ detail: 'This Idempotency-Key was already used with another request.' });
    const elsewhere = await admin.post('/api/customgroup', { name: title }, { headers: { 'Idempotency-Key': key } });
    expect(elsewhere.status).to.equal(422);
    expect(await countTrackers(`${title}-other`)).to.equal(0);
  });

  it('makes concurrent repeats wait for the first: one record, the same answer for all', async () => {
    const { admin } = suite();
    const key = unique('key');
    const title = unique('race');
    const answers = await Promise.all(Array.from({ length: 4 }, () => admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } })));
    expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).to.equal(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(3);
    expect(await countTrackers(title)).to.equal(1);
  });

  it('leaves the key free when the first request fails, and keeps keys apart per user', async () => {
    const { admin } = suite();
    const key = unique('key');
    const refused = await admin.post('/api/issue/tracker', {}, { headers: { 'Idempotency-Key': key } });
    expect(refused.status).to.equal(400);
    const title = unique('after');
    expect((await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } })).status).to.equal(201);
    const other = await makeUser({ permissions: ['issues.add_tracker', 'issues.view_tracker'] });
    const theirs = await other.client.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } });
    expect(theirs.status).to.equal(201);
    expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
    expect(await countTrackers(title)).to.equal(2);
  });

  it('refuses a key that is too long or not printable ASCII', async () => {
    const res = await suite().admin.post('/api/issue/tracker', { title: unique('bad') }, { headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
  });

  it('replays a batch action instead of running it again', async () => {
    const { admin } = suite();
    const folder = await created(admin, '/api/dms/folder', { title: unique('batch') });
    const docs = [await created(admin, '/api/dms/document', { title: unique('doc'), folder_id: folder.id }), await created(admin, '/api/dms/document', { title: unique('doc'), folder_id: folder.id })];
    const body = { document_ids: docs.map((d) => d.id) };
    const key = unique('key');
    const first = await admin.post('/api/dms/batch_delete', body, { headers: { 'Idempotency-Key': key } });
    expect([first.status, first.body]).to.deep.equal([200, { deleted: 2 }]);
    // run again, the ids would be refused as missing
    expect((await admin.post('/api/dms/batch_delete', body)).status).to.equal(400);
    const again = await admin.post('/api/dms/batch_delete', body, { headers: { 'Idempotency-Key': key } });
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).to.deep.equal([200, { deleted: 2 }, 'true']);
  });

  it('forgets keys after 24 hours', async () => {
    const { admin, service, adminId } = suite();
    const key = unique('key');
    const title = unique('old');
    expect((await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } })).status).to.equal(201);
    await service.db('idempotency_keys').where({ user_id: adminId, key }).update({ created_at: service.db.raw(`now() - interval '25 hours'`) });
    const again = await admin.post('/api/issue/tracker', { title }, { headers: { 'Idempotency-Key': key } });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(await countTrackers(title)).to.equal(2);
  });
});
