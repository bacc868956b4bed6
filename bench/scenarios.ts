/** What the bench measures: one kind of request each, sent over and over with varying ids and bodies. */
import { WORKFLOW, type BenchData } from './seed.js';

export const SCENARIO_NAMES = ['detail', 'filtered-list', 'search', 'tracker-list', 'tracker-list-viewer', 'aggregate', 'csv-export', 'create', 'patch-title', 'patch-state', 'upload', 'download'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** Where a request stands: the n-th of its run, and the k-th on its connection, number `slot`. */
export interface Turn {
  n: number;
  slot: number;
  k: number;
}

export interface Scenario {
  name: ScenarioName;
  label(data: BenchData): string;
  /** Whose token the requests carry. */
  as: 'admin' | 'viewer';
  /** The status every request must get; any other counts as an error. */
  status: number;
  /** Whether runs change data, to be put back after each. */
  writes: boolean;
  /** Whether the raw ceiling serves it (bench/ceiling.ts); when not, the service is compared with a peer only. */
  ceiling: boolean;
  /** The request maker of one run over `connections` connections. */
  requests(data: BenchData, connections: number): (turn: Turn) => BenchRequest;
  /** What a target needs before a run (a file to download): `send` sends a request to it with the admin's token. */
  prepare?(send: (req: BenchRequest) => Promise<Response>, data: BenchData): Promise<void>;
}

const ISSUES = '/api/issue/issue';
/** A stride coprime with most sizes, so consecutive details are far apart in the table. */
const STRIDE = 7919;
const rows = (n: number) => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`;

const json = (method: 'POST' | 'PATCH', path: string, body: unknown): BenchRequest => ({ method, path, body: JSON.stringify(body) });

/** The file scenarios' file: 10 MiB with no signature a type check would read. */
export const FILE_BYTES = Buffer.alloc(10 * 2 ** 20, 'Bench file bytes, uploaded and downloaded.\n');
const fileOf = (document: number) => `/api/dms/document/${document}/file`;
/** A raw upload of `FILE_BYTES` as a document's file. */
export const fileUpload = (document: number): BenchRequest => ({
  method: 'PUT',
  path: fileOf(document),
  body: FILE_BYTES,
  headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="bench.bin"' },
});

/**
 * Each connection walks issues of its own share of the pool one workflow step at a time: its k-th
 * request moves issue k mod (share size) on to the next state. No two connections touch one issue,
 * so every move is allowed until a share has walked the whole workflow (5 steps per issue); a
 * move after that is refused, and counted as an error.
 */
function workflowSteps(data: BenchData, connections: number) {
  const shares = new Map<number, number[]>();
  return ({ slot, k }: Turn): BenchRequest => {
    let share = shares.get(slot);
    if (!share) shares.set(slot, (share = data.statePool.filter((_, i) => i % connections === slot)));
    const id = share[k % share.length]!;
    const to = WORKFLOW[Math.floor(k / share.length) + 1] ?? 'new';
    return json('PATCH', `${ISSUES}/${id}`, { state: to });
  };
}

const read = (name: ScenarioName, label: Scenario['label'], as: Scenario['as'], path: (data: BenchData, n: number) => string): Scenario => ({
  name,
  label,
  as,
  status: 200,
  writes: false,
  ceiling: true,
  requests: (data) => ({ n }) => ({ method: 'GET', path: path(data, n) }),
});

const write = (name: ScenarioName, label: string, status: number, requests: Scenario['requests']): Scenario => ({
  name,
  label: () => label,
  as: 'admin',
  status,
  writes: true,
  ceiling: true,
  requests,
});

export const SCENARIOS: readonly Scenario[] = [
  read('detail', () => 'issue detail', 'admin', (data, n) => `${ISSUES}/${1 + ((n * STRIDE) % data.issues)}`),
  read(
    'filtered-list',
    (data) => `filtered list (?tracker=&state=, ${rows(data.filtered.rows)})`,
    'admin',
    (data) => `${ISSUES}?tracker=${data.filtered.tracker}&state=${data.filtered.state}`,
  ),
  read('search', (data) => `search (?search=${data.search.word}, ${rows(data.search.rows)})`, 'admin', (data) => `${ISSUES}?search=${encodeURIComponent(data.search.word)}`),
  read('tracker-list', (data) => `one tracker's list (${rows(data.trackerList.rows)})`, 'admin', (data) => `${ISSUES}?tracker=${data.trackerList.tracker}`),
  read('tracker-list-viewer', () => 'the same list, non-superuser (visibility rules)', 'viewer', (data) => `${ISSUES}?tracker=${data.trackerList.tracker}`),
  // docs/reporting.md; the ceiling has neither, so these compare with a peer only
  { ...read('aggregate', (data) => `aggregate (count by tracker and state, ${rows(data.issues)})`, 'admin', () => `${ISSUES}/aggregate?group_by=tracker,state`), ceiling: false },
  { ...read('csv-export', (data) => `one tracker's list as CSV (${rows(data.trackerList.rows)})`, 'admin', (data) => `${ISSUES}?tracker=${data.trackerList.tracker}&format=csv`), ceiling: false },
  write('create', 'create issue with 2 categories', 201, (data) => ({ n }) =>
    json('POST', ISSUES, { title: `Bench issue ${n}`, description: 'Created by the bench.', tracker_id: data.writes.tracker, category_ids: data.writes.categories }),
  ),
  write('patch-title', 'PATCH title', 200, (data) => ({ n }) => json('PATCH', `${ISSUES}/${data.titlePool[n % data.titlePool.length]!}`, { title: `Bench title ${n}` })),
  write('patch-state', 'PATCH state (one workflow step)', 200, workflowSteps),
  // each connection uploads to a document of its own, so none waits for another's record lock
  write('upload', 'upload a 10 MiB file (PUT, raw bytes)', 200, (data) => ({ slot }) => fileUpload(data.documents[slot % data.documents.length]!)),
  {
    ...read('download', () => 'download a 10 MiB file', 'admin', (data) => fileOf(data.documents[0]!)),
    async prepare(send, data) {
      const res = await send(fileUpload(data.documents[0]!));
      if (res.status !== 200) throw new Error(`the download's file was not stored: ${res.status} ${await res.text()}`);
    },
  },
];
