/** The runs folded into one table: medians over the rounds, errors summed, the highest peak memory, the ratios to the ceiling and to a peer. */
import type { Measurement } from './load.js';
import type { ScenarioName } from './scenarios.js';
import type { TargetKind } from './targets.js';

export interface Run {
  workers: number;
  scenario: ScenarioName;
  label: string;
  target: TargetKind;
  measurement: Measurement;
}

/** A measurement's fields as medians over the rounds (errors and failures summed, the highest peak memory). */
export interface Row extends Omit<Measurement, 'peakRss'> {
  workers: number;
  scenario: ScenarioName;
  label: string;
  target: TargetKind;
  rounds: number;
  /** Undefined when the target's processes are unknown (a peer without --peer-pid). */
  peakRssMiB: number | undefined;
  /** The service's median req/s over the ceiling's (service rows only). */
  ratio: number | undefined;
  /** The service's median req/s over the peer's (service rows only, when a peer ran the scenario). */
  peerRatio: number | undefined;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function sumFailures(all: readonly Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const failures of all) for (const [kind, n] of Object.entries(failures)) if (n) sum[kind] = (sum[kind] ?? 0) + n;
  return sum;
}

export function tabulate(runs: readonly Run[]): Row[] {
  const groups = new Map<string, Run[]>();
  for (const run of runs) {
    const key = `${run.workers}|${run.scenario}|${run.target}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const rows = [...groups.values()].map((group): Row => {
    const m = group.map((r) => r.measurement);
    const { workers, scenario, label, target } = group[0]!;
    return {
      workers,
      scenario,
      label,
      target,
      rounds: group.length,
      requests: m.reduce((sum, x) => sum + x.requests, 0),
      rps: median(m.map((x) => x.rps)),
      p50: median(m.map((x) => x.p50)),
      p99: median(m.map((x) => x.p99)),
      errors: m.reduce((sum, x) => sum + x.errors, 0),
      failures: sumFailures(m.map((x) => x.failures)),
      peakRssMiB: measured(m.map((x) => x.peakRss), (all) => Math.max(...all) / 2 ** 20),
      cpuMsPerRequest: measured(m.map((x) => x.cpuMsPerRequest), median),
      ratio: undefined,
      peerRatio: undefined,
    };
  });
  const rpsOf = (target: TargetKind, row: Row) => rows.find((r) => r.target === target && r.workers === row.workers && r.scenario === row.scenario)?.rps;
  for (const row of rows.filter((r) => r.target === 'service')) {
    const [ceiling, peer] = [rpsOf('ceiling', row), rpsOf('peer', row)];
    if (ceiling) row.ratio = row.rps / ceiling;
    if (peer) row.peerRatio = row.rps / peer;
  }
  return rows;
}

/** `fold` of the rounds' values, or undefined when they were not measured. */
function measured(values: readonly (number | undefined)[], fold: (all: number[]) => number): number | undefined {
  const known = values.filter((v) => v !== undefined);
  return known.length === values.length ? fold(known) : undefined;
}

const number = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A Markdown table, as docs/performance.md shows it. */
export function render(rows: readonly Row[]): string {
  const peer = rows.some((r) => r.target === 'peer');
  const head = ['workers', 'scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MiB', 'CPU ms/req', 'service/ceiling', ...(peer ? ['service/peer'] : [])];
  const percent = (ratio: number | undefined) => (ratio === undefined ? '' : `${Math.round(ratio * 100)}%`);
  const body = rows.map((r) => [
    String(r.workers),
    r.label,
    r.target,
    number(r.rps, r.rps < 100 ? 1 : 0),
    number(r.p50),
    number(r.p99),
    number(r.errors),
    r.peakRssMiB === undefined ? '' : number(r.peakRssMiB),
    r.cpuMsPerRequest === undefined ? '' : number(r.cpuMsPerRequest, r.cpuMsPerRequest < 10 ? 2 : 0),
    percent(r.ratio),
    ...(peer ? [percent(r.peerRatio)] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const numeric = (i: number) => i >= 3;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}
