/**
 * Before anything is measured: the ceiling must answer what the service answers, or the
 * comparison means nothing. Reads must give equal bodies (after JSON.parse) and statuses; writes
 * the same answers and the same stored rows, apart from what differs by nature (ids, uuids, times).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { restoreWrites, type BenchData } from './seed.js';
import type { Target } from './targets.js';

export class Disagreement extends Error {}

interface Reply {
  status: number;
  text: string;
  body: unknown;
}

async function call(target: Target, token: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(target.url + path, {
    method,
    headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Where `a` and `b` first differ, as a path and both values; undefined when deep-equal. */
function difference(a: unknown, b: unknown, at = '$'): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = difference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
  }
  return `${at}: service ${JSON.stringify(a)?.slice(0, 200)}, ceiling ${JSON.stringify(b)?.slice(0, 200)}`;
}

/** The record without what two creates cannot share. */
function comparable(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !['id', 'uuid', 'created', 'modified'].includes(key)));
}

/** The stored rows of issue `id` and its links and state log, without ids and times. */
async function storedRows(db: Knex, id: number): Promise<unknown> {
  const rows = async (sql: string) => ((await db.raw(sql, [id])) as { rows: unknown[] }).rows;
  return {
    issue: await rows(`select title, description, state, deadline, archived, tracker_id, assigned_user_id, created_by, remote_key from issue_issue where id = ?`),
    categories: await rows(`select category_id from issue_issue_categories where issue_id = ? order by 1`),
    log: await rows(`select resource, field, from_state, to_state, changed_by from state_changes where record_id = ? and resource = 'issue/issue' order by id`),
  };
}

/** Checks the reads and writes; answers how many read bodies were equal byte for byte too. Throws a Disagreement naming the first difference. */
export async function checkAgreement(service: Target, ceiling: Target, data: BenchData, db: Knex): Promise<{ reads: number; identical: number; writes: number }> {
  const both = async (what: string, token: string, method: string, path: string, body?: unknown): Promise<[Reply, Reply]> => {
    const [s, c] = [await call(service, token, method, path, body), await call(ceiling, token, method, path, body)];
    if (s.status !== c.status) throw new Disagreement(`${what} (${method} ${path}): the service answers ${s.status}, the ceiling ${c.status}: ${s.text.slice(0, 200)} / ${c.text.slice(0, 200)}`);
    return [s, c];
  };
  const { adminToken: admin, viewerToken: viewer } = data;
  const issues = '/api/issue/issue';
  const reads: [string, string, string][] = [
    ...[1, Math.ceil(data.issues / 2), data.issues].map((id): [string, string, string] => ['detail', admin, `${issues}/${id}`]),
    ['filtered list', admin, `${issues}?tracker=${data.filtered.tracker}&state=${data.filtered.state}`],
    ['search', admin, `${issues}?search=${encodeURIComponent(data.search.word)}`],
    ['tracker list', admin, `${issues}?tracker=${data.trackerList.tracker}`],
    ['tracker list as the viewer', viewer, `${issues}?tracker=${data.trackerList.tracker}`],
    // issue n lies in tracker n for n up to 20
    ['detail as the viewer', viewer, `${issues}/${data.trackerList.tracker}`],
    // issue 20 lies in a confidential tracker the viewer has nothing to do with
    ['hidden detail as the viewer', viewer, `${issues}/20`],
  ];
  let identical = 0;
  for (const [what, token, path] of reads) {
    const [s, c] = await both(what, token, 'GET', path);
    const d = difference(s.body, c.body);
    if (d) throw new Disagreement(`${what} (GET ${path}) differs at ${d}`);
    if (s.text === c.text) identical++;
  }

  const created = { title: 'Agreement check', description: 'Written by both.', tracker_id: data.writes.tracker, category_ids: data.writes.categories };
  const changes: [string, unknown][] = [
    ['PATCH state', { state: 'pending' }],
    ['PATCH title', { title: 'Agreement check, renamed' }],
    ['refused PATCH state', { state: 'resolved' }],
  ];
  try {
    const answers: [string, Reply, Reply][] = [['create', ...(await both('create', admin, 'POST', issues, created))]];
    const ids = answers[0]!.slice(1).map((r) => (r as Reply & { body: { id: number } }).body.id) as [number, number];
    for (const [what, change] of changes) {
      answers.push([what, await call(service, admin, 'PATCH', `${issues}/${ids[0]}`, change), await call(ceiling, admin, 'PATCH', `${issues}/${ids[1]}`, change)]);
    }
    for (const [what, s, c] of answers) {
      const d = s.status !== c.status ? `status: service ${s.status}, ceiling ${c.status}` : difference(comparable(s.body), comparable(c.body));
      if (d) throw new Disagreement(`${what} differs at ${d}`);
    }
    const d = difference(await storedRows(db, ids[0]), await storedRows(db, ids[1]));
    if (d) throw new Disagreement(`the rows written differ at ${d}`);
  } finally {
    await restoreWrites(db, data);
  }
  return { reads: reads.length, identical, writes: changes.length + 1 };
}
