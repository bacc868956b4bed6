/**
 * Import rows per second: 100,000 issues as one CSV sent to `POST /api/issue/issue/import`, larger
 * than IMPORT_SYNC_MAX_BYTES, so it runs as a background job; timed from the upload to the job's
 * success (every row through the API's write path, one transaction). Runs last: it adds the rows.
 */
import type { BenchData } from './seed.js';
import type { Target } from './targets.js';

export const IMPORT_ROWS = 100_000;

export interface ImportRate {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export async function measureImport(target: Target, data: BenchData, rows = IMPORT_ROWS): Promise<ImportRate> {
  const lines = ['title,tracker_id,deadline'];
  for (let i = 1; i <= rows; i++) lines.push(`Imported issue ${i},${data.writes.tracker},2026-12-${String(1 + (i % 28)).padStart(2, '0')}`);
  const headers = { Authorization: `Token ${data.adminToken}` };
  const started = process.hrtime.bigint();
  const res = await fetch(`${target.url}/api/issue/issue/import`, { method: 'POST', headers: { ...headers, 'Content-Type': 'text/csv' }, body: lines.join('\n') });
  if (res.status !== 202) throw new Error(`the import answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const location = res.headers.get('location')!;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const job = (await (await fetch(`${target.url}${location}`, { headers })).json()) as { status: string; detail?: string };
    if (job.status === 'failed') throw new Error(`the import failed: ${job.detail}`);
    if (job.status === 'succeeded') break;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rows, seconds, rowsPerSecond: rows / seconds };
}
