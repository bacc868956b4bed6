/**
 * `--metrics-cost`: what METRICS=true costs. Two services side by side on the bench database, one
 * with metrics and one without, both driven with the issue-detail scenario in turn, the one going
 * first alternating by round. Prints each one's median requests per second and CPU time per
 * request, and the differences; the bound is at most 3% fewer detail requests per second.
 * On a busy machine requests per second wander by more than that: the CPU time per request is the
 * steadier measure, and the bound is for a quiet machine.
 */
import type { Knex } from 'knex';
import type { LoadShape, Measurement } from './load.js';
import type { BenchOptions } from './options.js';
import { median } from './report.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import type { BenchData } from './seed.js';
import { startTarget, type Target } from './targets.js';

type Measure = (db: Knex, data: BenchData, target: Target, scenario: Scenario, shape: LoadShape) => Promise<Measurement>;

const say = (line: string) => void process.stderr.write(`${line}\n`);
/** Both targets are services the bench started: their CPU time is always read. */
const cpuOf = (m: Measurement) => m.cpuMsPerRequest!;
const percent = (on: number, off: number): string => `${on >= off ? '+' : ''}${(((on - off) / off) * 100).toFixed(1)}%`;

export async function measureMetricsCost(options: BenchOptions, db: Knex, url: string, data: BenchData, measure: Measure): Promise<{ text: string; failed: boolean }> {
  const detail = SCENARIOS.find((s) => s.name === 'detail')!;
  const workers = options.workers[0]!;
  const shape: LoadShape = { connections: options.connections, duration: options.duration, requests: options.requests };
  const targets = await Promise.all([
    startTarget('service', url, workers, { METRICS: 'false' }).then((target) => ({ name: 'METRICS off', target })),
    startTarget('service', url, workers, { METRICS: 'true', METRICS_PORT: '0' }).then((target) => ({ name: 'METRICS on', target })),
  ]);
  const runs = new Map<string, Measurement[]>(targets.map(({ name }) => [name, []]));
  try {
    if (options.warmup > 0) for (const { target } of targets) await measure(db, data, target, detail, { ...shape, duration: options.warmup, requests: undefined });
    for (let round = 1; round <= options.rounds; round++) {
      for (const { name, target } of round % 2 ? targets : [...targets].reverse()) {
        const m = await measure(db, data, target, detail, shape);
        runs.get(name)!.push(m);
        say(`  ${workers}w detail round ${round} ${name.padEnd(11)} ${m.rps.toFixed(1).padStart(8)} req/s ${cpuOf(m).toFixed(3)} ms CPU/request errors ${m.errors}`);
      }
    }
  } finally {
    await Promise.all(targets.map(({ target }) => target.stop()));
  }
  const summary = [...runs].map(([name, ms]) => ({ name, rps: median(ms.map((m) => m.rps)), cpu: median(ms.map(cpuOf)), errors: ms.reduce((n, m) => n + m.errors, 0) }));
  const [off, on] = summary as [(typeof summary)[number], (typeof summary)[number]];
  const lines = [
    `Metrics cost: ${detail.label(data)}, ${workers} worker(s), ${options.connections} connections, median of ${options.rounds} round(s)`,
    ...summary.map((s) => `  ${s.name.padEnd(11)}  ${s.rps.toFixed(1).padStart(9)} req/s  ${s.cpu.toFixed(3)} ms CPU/request  ${s.errors} errors`),
    `  METRICS on: ${percent(on.rps, off.rps)} req/s, ${percent(on.cpu, off.cpu)} CPU per request (the bound: no worse than -3.0% req/s, on a quiet machine)`,
  ];
  return { text: lines.join('\n'), failed: summary.some((s) => s.errors > 0) };
}
