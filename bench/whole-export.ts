/**
 * The whole issue table exported as CSV and as XLSX, read by a single client: rows per second, and
 * how far the service's resident memory rose above what it held before (an export streams, so the
 * rise should not grow with the table). The CSV's rows are counted (its records hold no CRLF, which
 * ends each row); the workbook is read to its end. Like the whole-table list, a run over a million
 * rows needs STATEMENT_TIMEOUT_MS=0.
 */
import { peakRss, resetPeakRss, rss } from './proc.js';
import type { BenchData } from './seed.js';
import type { Target } from './targets.js';

export interface WholeExport {
  format: 'csv' | 'xlsx';
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** The highest resident size during the export less the size before it. */
  rssRiseMiB: number;
  bytes: number;
}

const since = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

async function exportOnce(target: Target, token: string, format: 'csv' | 'xlsx'): Promise<{ seconds: number; lines: number; bytes: number }> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${target.url}/api/issue/issue?format=${format}`, { headers: { Authorization: `Token ${token}` } });
  if (res.status !== 200 || !res.body) throw new Error(`the ${format} export answered ${res.status}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    const part = chunk as Uint8Array;
    bytes += part.length;
    // CRLF is 13 10; a row's CR never ends a chunk's read unseen, as its LF follows it in the same or the next chunk
    for (let i = 0; i < part.length; i++) if (part[i] === 10) lines++;
  }
  return { seconds: since(started), lines, bytes };
}

export async function measureWholeExport(target: Target, data: BenchData, format: 'csv' | 'xlsx'): Promise<WholeExport> {
  const [pid] = target.servingPids();
  const before = rss(pid!);
  resetPeakRss(pid!);
  const { seconds, lines, bytes } = await exportOnce(target, data.adminToken, format);
  // the header, then one line per issue
  if (format === 'csv' && lines !== data.issues + 1) throw new Error(`the CSV export held ${lines - 1} rows, not ${data.issues}`);
  return { format, rows: data.issues, seconds, rowsPerSecond: data.issues / seconds, rssRiseMiB: (peakRss(pid!) - before) / 2 ** 20, bytes };
}
