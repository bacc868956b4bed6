/**
 * Processes the bench started, driven alike with one scenario in turn, the one going first
 * alternating by round, then stopped: the runs of --metrics-cost and --framework-floor.
 */
import type { Knex } from 'knex';
import type { LoadShape, Measurement } from './load.js';
import type { BenchOptions } from './options.js';
import { median } from './report.js';
import type { Scenario } from './scenarios.js';
import type { BenchData } from './seed.js';
import type { Target } from './targets.js';

export type Measure = (db: Knex, data: BenchData, target: Target, scenario: Scenario, shape: LoadShape) => Promise<Measurement>;

export interface Named {
  name: string;
  target: Target;
}

/** One target's medians over the rounds. */
export interface SideSummary {
  name: string;
  rps: number;
  /** Milliseconds; the bench reads every started process's CPU time. */
  cpu: number;
  errors: number;
}

const say = (line: string) => void process.stderr.write(`${line}\n`);

/** `started`: the targets, in the order they are reported; all stopped at the end, whatever happens. */
export async function sideBySide(options: BenchOptions, db: Knex, data: BenchData, scenario: Scenario, started: Promise<Named>[], measure: Measure): Promise<SideSummary[]> {
  const settled = await Promise.allSettled(started);
  const targets = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const runs = new Map<string, Measurement[]>(targets.map(({ name }) => [name, []]));
  const shape: LoadShape = { connections: options.connections, duration: options.duration, requests: options.requests };
  const width = Math.max(...targets.map(({ name }) => name.length));
  try {
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (options.warmup > 0) for (const { target } of targets) await measure(db, data, target, scenario, { ...shape, duration: options.warmup, requests: undefined });
    for (let round = 1; round <= options.rounds; round++) {
      for (const { name, target } of round % 2 ? targets : [...targets].reverse()) {
        const m = await measure(db, data, target, scenario, shape);
        runs.get(name)!.push(m);
        say(`  ${options.workers[0]}w ${scenario.name} round ${round} ${name.padEnd(width)} ${m.rps.toFixed(1).padStart(8)} req/s ${m.cpuMsPerRequest!.toFixed(3)} ms CPU/request errors ${m.errors}`);
      }
    }
  } finally {
    await Promise.all(targets.map(({ target }) => target.stop()));
  }
  return [...runs].map(([name, ms]) => ({ name, rps: median(ms.map((m) => m.rps)), cpu: median(ms.map((m) => m.cpuMsPerRequest!)), errors: ms.reduce((n, m) => n + m.errors, 0) }));
}

/** A summary's line: name, median req/s, CPU per request, errors. */
export const sideLine = (s: SideSummary, width: number): string =>
  `  ${s.name.padEnd(width)}  ${s.rps.toFixed(1).padStart(9)} req/s  ${s.cpu.toFixed(3)} ms CPU/request  ${s.errors} errors`;
