/**
 * The whole issue table as one streamed list, read by a single client: the time per row, which
 * should not grow with the table (the list streams from a cursor in constant memory). The list is
 * one statement: past the service's STATEMENT_TIMEOUT_MS (30 s by default) it is cut off, so a
 * run over a million rows sets STATEMENT_TIMEOUT_MS=0 in the bench's environment.
 */
import type { BenchData } from './seed.js';
import type { Target } from './targets.js';

export interface WholeList {
  rows: number;
  /** Median over the reads. */
  seconds: number;
  microsecondsPerRow: number;
}

const READS = 3;

async function readOnce(target: Target, token: string): Promise<{ seconds: number; rows: number }> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${target.url}/api/issue/issue`, { headers: { Authorization: `Token ${token}` } });
  if (res.status !== 200 || !res.body) throw new Error(`the whole-table list answered ${res.status}`);
  let rows = 0;
  // each record is one object whose JSON holds `"uuid"` once
  let tail = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    const text = tail + decoder.decode(chunk as Uint8Array, { stream: true });
    rows += text.split('"uuid"').length - 1;
    tail = text.slice(-6);
    rows -= tail.split('"uuid"').length - 1;
  }
  rows += tail.split('"uuid"').length - 1;
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, rows };
}

export async function measureWholeList(target: Target, data: BenchData): Promise<WholeList> {
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const { seconds, rows } = await readOnce(target, data.adminToken);
    if (rows !== data.issues) throw new Error(`the whole-table list held ${rows} records, not ${data.issues}`);
    times.push(seconds);
  }
  const seconds = times.sort((a, b) => a - b)[Math.floor(READS / 2)]!;
  return { rows: data.issues, seconds, microsecondsPerRow: (seconds * 1e6) / data.issues };
}
