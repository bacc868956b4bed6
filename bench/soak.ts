/**
 * `npm run bench -- --soak S`: the service under a steady mix of reads and writes for S seconds
 * (details, lists, creates, title PATCHes, state moves of its own creates, deletes of those), its
 * resident memory sampled every 10 s. Passes when no request failed (no 5xx, no other status than
 * the one asked for, no timeout), no acknowledged write is lost (the issues stored at the end are
 * exactly those created and not deleted) and memory shows no upward trend.
 */
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { rss } from './proc.js';
import type { BenchData } from './seed.js';
import { startTarget } from './targets.js';

const ISSUES = '/api/issue/issue';
const SAMPLE_EVERY_MS = 10_000;
const MIB = 1024 * 1024;
/**
 * Memory "grows" when the last third's lowest sample exceeds the middle third's by more than this
 * share, and by more than the floor. The lows, not the means: a collected heap's RSS rises and falls
 * by tens of MiB between collections (a soak's samples swung 148 → 252 → 148 MiB), so a mean over a
 * few samples says where the saw was; the level it returns to is what a leak would raise.
 */
const GROWTH_SHARE = 0.05;
const GROWTH_FLOOR = 8 * MIB;
/** Fewer samples than this say nothing about a trend. */
const MIN_SAMPLES = 6;

type Kind = 'detail' | 'filtered list' | 'page of a list' | 'create' | 'PATCH title' | 'state move' | 'delete own create';
/** One in twenty requests of each kind, so many times: 11 reads, 9 writes. */
const MIX: Kind[] = [
  ...Array<Kind>(6).fill('detail'),
  ...Array<Kind>(3).fill('create'),
  ...Array<Kind>(2).fill('filtered list'),
  ...Array<Kind>(3).fill('page of a list'),
  ...Array<Kind>(2).fill('PATCH title'),
  ...Array<Kind>(2).fill('state move'),
  ...Array<Kind>(2).fill('delete own create'),
];
const EXPECTED: Record<string, number> = { GET: 200, POST: 201, PATCH: 200, DELETE: 204 };

export interface SoakResult {
  requests: number;
  rps: number;
  /** Answers by status, with `timeout` and `socket error`. */
  answers: Record<string, number>;
  failures: number;
  created: number;
  deleted: number;
  stored: number;
  /** Acknowledged creates that are not stored, though not deleted. */
  lost: number[];
  /** Stored issues that no acknowledged create made or that a delete was sent for: requests in flight when the run ended. */
  unexpected: number[];
  /** Resident memory of the serving processes, bytes, every 10 s from the start. */
  samples: number[];
  trend: { judged: boolean; middle: number; last: number; slopePerMinute: number; rising: boolean };
}

/** The request maker and the bookkeeping of acknowledged writes. */
function mixedLoad(data: BenchData) {
  const created = new Set<number>();
  const claimedForDelete = new Set<number>();
  const fresh: number[] = [];
  const moved: number[] = [];
  let n = 0;
  const readDetail = (i: number): Partial<autocannon.Request> => ({ method: 'GET', path: `${ISSUES}/${1 + ((i * 7919) % data.issues)}` });
  const next = (): Partial<autocannon.Request> => {
    const i = n++;
    switch (MIX[i % MIX.length]!) {
      case 'detail':
        return readDetail(i);
      case 'filtered list':
        return { method: 'GET', path: `${ISSUES}?tracker=${data.filtered.tracker}&state=${data.filtered.state}` };
      case 'page of a list':
        return { method: 'GET', path: `${ISSUES}?tracker=${data.trackerList.tracker}&ordering=-modified&limit=50&offset=${(i * 31) % 500}` };
      case 'create':
        return { method: 'POST', path: ISSUES, body: JSON.stringify({ title: `Soak issue ${i}`, description: 'Created by the soak.', tracker_id: data.writes.tracker, category_ids: data.writes.categories }) };
      case 'PATCH title':
        return { method: 'PATCH', path: `${ISSUES}/${data.titlePool[i % data.titlePool.length]!}`, body: JSON.stringify({ title: `Soak title ${i}` }) };
      case 'state move': {
        const id = fresh.shift();
        return id === undefined ? readDetail(i) : { method: 'PATCH', path: `${ISSUES}/${id}`, body: JSON.stringify({ state: 'pending' }) };
      }
      case 'delete own create': {
        const id = moved.shift();
        if (id === undefined) return readDetail(i);
        claimedForDelete.add(id);
        return { method: 'DELETE', path: `${ISSUES}/${id}` };
      }
    }
  };
  /** Created issues go on to a state move, moved ones on to their delete. */
  const onResponse = (status: number, body: string) => {
    // lists are arrays: only a record can be one this bookkeeping follows
    if ((status !== 201 && status !== 200) || !body.startsWith('{')) return;
    const record = JSON.parse(body) as { id?: number; state?: string; title?: string };
    if (status === 201 && record.id !== undefined) {
      created.add(record.id);
      fresh.push(record.id);
    } else if (record.state === 'pending' && record.title?.startsWith('Soak issue') && record.id !== undefined) moved.push(record.id);
  };
  return { next, onResponse, created, claimedForDelete };
}

/**
 * autocannon writes each request's Content-Length into the headers object it shares with the
 * connection's next request: a read after a write would announce a body it does not have.
 */
const withoutStaleLength = (next: () => Partial<autocannon.Request>) => (req: autocannon.Request): autocannon.Request => {
  const headers = { ...req.headers };
  delete headers['Content-Length'];
  return { ...req, headers, ...next() };
};

/** Middle third's low against last third's, and the least-squares slope of the second half. */
export function memoryTrend(samples: number[]): SoakResult['trend'] {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  const third = Math.floor(samples.length / 3);
  const middle = Math.min(...samples.slice(third, 2 * third));
  const last = Math.min(...samples.slice(2 * third));
  const half = samples.slice(Math.floor(samples.length / 2));
  const xMean = (half.length - 1) / 2;
  const yMean = mean(half);
  const slope = half.reduce((s, y, x) => s + (x - xMean) * (y - yMean), 0) / Math.max(half.reduce((s, _, x) => s + (x - xMean) ** 2, 0), 1);
  const judged = samples.length >= MIN_SAMPLES;
  return { judged, middle, last, slopePerMinute: slope * (60_000 / SAMPLE_EVERY_MS), rising: judged && last - middle > Math.max(middle * GROWTH_SHARE, GROWTH_FLOOR) };
}

export async function runSoak(db: Knex, url: string, data: BenchData, seconds: number, connections: number, workers: number): Promise<SoakResult> {
  const target = await startTarget('service', url, workers);
  const load = mixedLoad(data);
  const samples: number[] = [];
  const sample = () => samples.push(target.servingPids().reduce((sum, pid) => sum + rss(pid), 0));
  let result: autocannon.Result;
  try {
    sample();
    const timer = setInterval(sample, SAMPLE_EVERY_MS);
    try {
      result = await autocannon({
        url: target.url,
        connections,
        duration: seconds,
        timeout: 60,
        headers: { authorization: `Token ${data.adminToken}`, 'content-type': 'application/json' },
        requests: [{ setupRequest: withoutStaleLength(load.next), onResponse: load.onResponse } as autocannon.Request],
      });
    } finally {
      clearInterval(timer);
    }
  } finally {
    await target.stop();
  }
  const answers: Record<string, number> = { timeout: result.timeouts, 'socket error': result.errors - result.timeouts };
  for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) answers[status] = count;
  const expected = new Set(Object.values(EXPECTED).map(String));
  const failures = Object.entries(answers).reduce((sum, [k, v]) => sum + (expected.has(k) ? 0 : v), 0);
  const stored = new Set(((await db('issue_issue').where('id', '>', data.issues).pluck('id')) as number[]).map(Number));
  const kept = new Set([...load.created].filter((id) => !load.claimedForDelete.has(id)));
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    answers,
    failures,
    created: load.created.size,
    deleted: answers['204'] ?? 0,
    stored: stored.size,
    lost: [...kept].filter((id) => !stored.has(id)),
    unexpected: [...stored].filter((id) => !kept.has(id)),
    samples,
    trend: memoryTrend(samples),
  };
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/** The soak's report, and whether it passed. */
export function soakReport(r: SoakResult, seconds: number, connections: number): { text: string; passed: boolean } {
  // requests in flight when the run ends may be stored unacknowledged: at most one per connection
  const passed = r.failures === 0 && r.lost.length === 0 && r.unexpected.length <= connections && !r.trend.rising;
  const rows = r.samples.map((s, i) => `  ${String(i * 10).padStart(5)} s  ${mib(s)}`);
  const trend = r.trend.judged
    ? `lowest sample of the middle third ${mib(r.trend.middle)}, of the last third ${mib(r.trend.last)}, second-half slope ${(r.trend.slopePerMinute / MIB).toFixed(2)} MiB/min: ${r.trend.rising ? 'RISING' : 'flat'}`
    : `not judged (${r.samples.length} samples; needs ${MIN_SAMPLES})`;
  const text = [
    `Soak: ${seconds} s at ${connections} connections, ${r.requests.toLocaleString('en-US')} requests (${r.rps.toFixed(1)} req/s)`,
    `answers: ${Object.entries(r.answers).filter(([, v]) => v > 0).map(([k, v]) => `${k}: ${v}`).join(', ')}; failed: ${r.failures}`,
    `writes: ${r.created} acknowledged creates, ${r.deleted} acknowledged deletes, ${r.stored} stored at the end (expected ${r.created - r.deleted}); lost ${r.lost.length}${r.lost.length ? ` (${r.lost.slice(0, 10).join(', ')})` : ''}, stored by requests in flight at the end ${r.unexpected.length} (at most ${connections})`,
    'resident memory of the service:',
    ...rows,
    `memory trend: ${trend}`,
    `verdict: ${passed ? 'PASS' : 'FAIL'}`,
  ].join('\n');
  return { text, passed };
}
