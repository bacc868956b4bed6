/**
 * `--framework-floor`: how much of the service's CPU time per request its framework takes before
 * any work of its own. Three floor processes (floor.ts) answer the issue detail's request with one
 * fixed record text and no database: node:http alone (as the ceiling), Koa with @koa/router, and
 * Koa with the service's front middleware; beside them the ceiling and the service on the bench
 * database. All five driven with the detail scenario in turn, the one going first alternating by
 * round. The framework's cost is the front floor's CPU per request less node:http's; the ceiling's
 * plus that cost is the least CPU per detail a service on this framework can spend, whatever its
 * own code does: issue 30's bound (1.25× the ceiling's) is set against it.
 */
import type { Knex } from 'knex';
import type { BenchOptions } from './options.js';
import { SCENARIOS } from './scenarios.js';
import type { BenchData } from './seed.js';
import { sideBySide, sideLine, type Measure, type SideSummary } from './side-by-side.js';
import { startTarget } from './targets.js';

/** The environment variable naming a floor process's stack. */
export const FLOOR_SETTING = 'BENCH_FLOOR';
export const FLOOR_STACKS = ['node', 'koa', 'front'] as const;
export type FloorStack = (typeof FLOOR_STACKS)[number];

const NAMES: Record<FloorStack, string> = {
  node: 'floor: node:http',
  koa: 'floor: Koa, @koa/router',
  front: "floor: Koa, the service's front, @koa/router",
};
/** Issue 30's bound on CPU time per request, as a multiple of the ceiling's. */
const CPU_BOUND = 1.25;

export async function measureFrameworkFloor(options: BenchOptions, db: Knex, url: string, data: BenchData, measure: Measure): Promise<{ text: string; failed: boolean }> {
  const detail = SCENARIOS.find((s) => s.name === 'detail')!;
  const workers = options.workers[0]!;
  const summary = await sideBySide(options, db, data, detail, [
    ...FLOOR_STACKS.map((stack) => startTarget('floor', url, workers, { [FLOOR_SETTING]: stack }).then((target) => ({ name: NAMES[stack], target }))),
    startTarget('ceiling', url, workers).then((target) => ({ name: 'ceiling', target })),
    startTarget('service', url, workers).then((target) => ({ name: 'service', target })),
  ], measure);
  const of = (name: string) => summary.find((s) => s.name === name)!;
  const [node, koa, front, ceiling, service] = [NAMES.node, NAMES.koa, NAMES.front, 'ceiling', 'service'].map(of) as [SideSummary, SideSummary, SideSummary, SideSummary, SideSummary];
  const framework = front.cpu - node.cpu;
  const least = ceiling.cpu + framework;
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  const times = (n: number) => `${(n / ceiling.cpu).toFixed(2)}×`;
  const width = Math.max(...summary.map((s) => s.name.length));
  const lines = [
    `Framework floor: ${detail.label(data)}, ${workers} worker(s), ${options.connections} connections, median of ${options.rounds} round(s); the floors answer one fixed record without the database`,
    ...summary.map((s) => sideLine(s, width)),
    `  The framework's own CPU per request: ${ms(framework)} (Koa and @koa/router ${ms(koa.cpu - node.cpu)}, the service's front ${ms(front.cpu - koa.cpu)}).`,
    `  The least CPU per detail on this framework: the ceiling's ${ms(ceiling.cpu)} + ${ms(framework)} = ${ms(least)}, ${times(least)} the ceiling's; ` +
      (least / ceiling.cpu > CPU_BOUND ? `issue 30's bound (${CPU_BOUND}×) is below it: no service on this framework meets it.` : `issue 30's bound (${CPU_BOUND}×) is above it.`),
    `  The service: ${ms(service.cpu)}, ${times(service.cpu)} the ceiling's; less that least: ${ms(service.cpu - least)} per detail (its own work beyond the ceiling's; one run's noise can make it negative).`,
  ];
  return { text: lines.join('\n'), failed: summary.some((s) => s.errors > 0) };
}
