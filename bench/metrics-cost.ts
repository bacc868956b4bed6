/**
 * `--metrics-cost`: what METRICS=true costs. Two services side by side on the bench database, one
 * with metrics and one without, both driven with the issue-detail scenario in turn, the one going
 * first alternating by round. Prints each one's median requests per second and CPU time per
 * request, and the differences; the bound is at most 3% fewer detail requests per second.
 * On a busy machine requests per second wander by more than that: the CPU time per request is the
 * steadier measure, and the bound is for a quiet machine.
 */
import type { Knex } from 'knex';
import type { BenchOptions } from './options.js';
import { SCENARIOS } from './scenarios.js';
import type { BenchData } from './seed.js';
import { sideBySide, sideLine, type Measure } from './side-by-side.js';
import { startTarget } from './targets.js';

const percent = (on: number, off: number): string => `${on >= off ? '+' : ''}${(((on - off) / off) * 100).toFixed(1)}%`;

export async function measureMetricsCost(options: BenchOptions, db: Knex, url: string, data: BenchData, measure: Measure): Promise<{ text: string; failed: boolean }> {
  const detail = SCENARIOS.find((s) => s.name === 'detail')!;
  const workers = options.workers[0]!;
  const summary = await sideBySide(options, db, data, detail, [
    startTarget('service', url, workers, { METRICS: 'false' }).then((target) => ({ name: 'METRICS off', target })),
    startTarget('service', url, workers, { METRICS: 'true', METRICS_PORT: '0' }).then((target) => ({ name: 'METRICS on', target })),
  ], measure);
  const [off, on] = summary as [(typeof summary)[number], (typeof summary)[number]];
  const lines = [
    `Metrics cost: ${detail.label(data)}, ${workers} worker(s), ${options.connections} connections, median of ${options.rounds} round(s)`,
    ...summary.map((s) => sideLine(s, 11)),
    `  METRICS on: ${percent(on.rps, off.rps)} req/s, ${percent(on.cpu, off.cpu)} CPU per request (the bound: no worse than -3.0% req/s, on a quiet machine)`,
  ];
  return { text: lines.join('\n'), failed: summary.some((s) => s.errors > 0) };
}
