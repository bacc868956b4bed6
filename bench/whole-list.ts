/**
 * The whole issue table as one streamed list, read by a single client: the time per row, which
 * should not grow with the table (the list streams from a cursor in constant memory), the time to
 * the first byte, and how far the service's resident memory rose above what it held before. The list is
 * one statement: past the service's STATEMENT_TIMEOUT_MS (30 s by default) it is cut off, so a
 * run over a million rows sets STATEMENT_TIMEOUT_MS=0 in the bench's environment.
 */
import { peakRss, resetPeakRss, rss } from './proc.js';
import { median } from './report.js';
import type { BenchData } from './seed.js';
import type { Target } from './targets.js';

export interface WholeList {
  rows: number;
  /** Medians over the reads. */
  seconds: number;
  microsecondsPerRow: number;
  firstByteMs: number;
  /** The highest resident size during a read less the size before it, the largest over the reads. */
  rssRiseMiB: number;
}

const READS = 3;

const since = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

async function readOnce(target: Target, token: string): Promise<{ seconds: number; rows: number; firstByte: number }> {
  const started = process.hrtime.bigint();
  // fetch resolves once the status line and headers are in: the first bytes of the answer
  const res = await fetch(`${target.url}/api/issue/issue`, { headers: { Authorization: `Token ${token}` } });
  const firstByte = since(started);
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
  return { seconds: since(started), rows, firstByte };
}

export async function measureWholeList(target: Target, data: BenchData): Promise<WholeList> {
  const [pid] = target.servingPids();
  const times: number[] = [];
  const firstBytes: number[] = [];
  let rise = 0;
  for (let i = 0; i < READS; i++) {
    const before = rss(pid!);
    resetPeakRss(pid!);
    const { seconds, rows, firstByte } = await readOnce(target, data.adminToken);
    if (rows !== data.issues) throw new Error(`the whole-table list held ${rows} records, not ${data.issues}`);
    times.push(seconds);
    firstBytes.push(firstByte);
    rise = Math.max(rise, peakRss(pid!) - before);
  }
  const seconds = median(times);
  return { rows: data.issues, seconds, microsecondsPerRow: (seconds * 1e6) / data.issues, firstByteMs: median(firstBytes) * 1000, rssRiseMiB: rise / 2 ** 20 };
}
