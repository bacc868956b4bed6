/**
 * Lost updates (RFC 9110 conditional requests): a detail's strong ETag, 304 for a GET whose
 * If-None-Match names it, 412 for a PUT, PATCH or DELETE whose If-Match does not (nothing changed),
 * and two writers holding the same tag: one wins, the other is refused.
 */
import { expect } from 'chai';
import { suite } from './support/hooks.js';
import { created, unique } from './support/fixtures.js';

const FAILED = { detail: 'Precondition failed.' };

describe('conditional requests (ETag, If-None-Match, If-Match)', () => {
  let path: string;
  const tagOf = async (p = path): Promise<string> => (await suite().admin.get(p)).headers.get('etag')!;

  beforeEach(async () => {
    path = `/api/issue/tracker/${(await created(suite().admin, '/api/issue/tracker', { title: unique('etag') })).id}`;
  });

  it('tags a detail strongly, the same bytes the same tag; another representation another tag', async () => {
    const { admin } = suite();
    const tag = await tagOf();
    expect(tag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(await tagOf()).to.equal(tag);
    expect(await tagOf(`${path}?fields=id,title`)).to.match(/^"/).and.not.equal(tag);
    const changed = await admin.patch(path, { title: unique('changed') });
    expect(changed.headers.get('etag')).to.equal(await tagOf()).and.not.equal(tag);
  });

  it('answers 304 with the tag, no body, when If-None-Match names it (weakly, in a list, or *)', async () => {
    const { admin } = suite();
    const tag = await tagOf();
    for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
      const res = await admin.get(path, { headers: { 'If-None-Match': header } });
      expect(res.status, header).to.equal(304);
      expect(res.headers.get('etag')).to.equal(tag);
      expect(res.text).to.equal('');
    }
    const other = await admin.get(path, { headers: { 'If-None-Match': '"other"' } });
    expect(other.status).to.equal(200);
    expect(other.body.id).to.be.a('number');
  });

  it('refuses PUT, PATCH and DELETE with 412 when If-Match does not hold (stale, weak), changing nothing', async () => {
    const { admin } = suite();
    const before = await admin.get(path);
    const tag = before.headers.get('etag')!;
    for (const header of ['"stale"', `W/${tag}`]) {
      const patch = await admin.patch(path, { title: 'lost' }, { headers: { 'If-Match': header } });
      expect([patch.status, patch.body], header).to.deep.equal([412, FAILED]);
      const put = await admin.put(path, { ...before.body, title: 'lost' }, { headers: { 'If-Match': header } });
      expect([put.status, put.body], header).to.deep.equal([412, FAILED]);
      const del = await admin.delete(path, { headers: { 'If-Match': header } });
      expect([del.status, del.body], header).to.deep.equal([412, FAILED]);
    }
    expect((await admin.get(path)).text).to.equal(before.text);
  });

  it('writes when If-Match holds (the tag, one of a list, or *), answering the new tag', async () => {
    const { admin } = suite();
    const put = await admin.put(path, { title: unique('put') }, { headers: { 'If-Match': await tagOf() } });
    expect(put.status, put.text).to.equal(200);
    expect(put.headers.get('etag')).to.equal(await tagOf());
    const patch = await admin.patch(path, { title: unique('patch') }, { headers: { 'If-Match': `"other", ${await tagOf()}` } });
    expect(patch.status, patch.text).to.equal(200);
    expect((await admin.patch(path, { title: unique('any') }, { headers: { 'If-Match': '*' } })).status).to.equal(200);
    expect((await admin.delete(path, { headers: { 'If-Match': await tagOf() } })).status).to.equal(204);
    expect((await admin.get(path)).status).to.equal(404);
    expect((await admin.delete(path, { headers: { 'If-Match': '*' } })).status).to.equal(404);
  });

  it('lets one of two writers holding the same tag win; the other gets 412 and its change is not stored', async () => {
    const { admin } = suite();
    const tag = await tagOf();
    const titles = [unique('first'), unique('second')];
    const answers = await Promise.all(titles.map((title) => admin.patch(path, { title }, { headers: { 'If-Match': tag } })));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await admin.get(path)).body.title).to.equal(winner.body.title);
  });
});
