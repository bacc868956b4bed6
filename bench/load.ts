/** One measured run: a scenario against a target with autocannon, for a duration or a number of requests. */
import autocannon from 'autocannon';
import type { BenchData } from './seed.js';
import type { BenchRequest, Scenario, Turn } from './scenarios.js';
import { authorization, withUsage, type Target } from './targets.js';

export interface Measurement {
  requests: number;
  /** Completed requests per second. */
  rps: number;
  /** Latency percentiles, milliseconds. */
  p50: number;
  p99: number;
  /** Answers with another status than the scenario's, plus socket errors and timeouts. */
  errors: number;
  /** The errors by kind: a status code, `timeout` or `socket error`. */
  failures: Record<string, number>;
  /** Bytes; summed over workers; undefined when the target's processes are unknown (a peer without --peer-pid). */
  peakRss: number | undefined;
  /** CPU time of the serving processes per completed request, milliseconds: the cost that a busy machine does not blur. */
  cpuMsPerRequest: number | undefined;
}

export interface LoadShape {
  connections: number;
  /** Seconds; ignored when `requests` is set. */
  duration: number;
  requests: number | undefined;
}

/** Per-connection state: autocannon deep-copies the request options for every connection. */
interface Connection {
  slot: number;
  k: number;
}

export async function runLoad(target: Target, scenario: Scenario, data: BenchData, shape: LoadShape): Promise<Measurement> {
  const next = scenario.requests(data, shape.connections);
  const { dialect } = target;
  const status = dialect.status(scenario);
  const headers = { authorization: authorization(target, scenario.as, data), 'content-type': 'application/json' };
  let n = 0;
  let slots = 0;
  // each connection's next turn, carried over from the last run where the target keeps what runs wrote
  const carried = scenario.writes ? target.carried : undefined;
  const turns = [...(carried?.get(scenario.name) ?? [])];
  const setupRequest = (req: autocannon.Request): autocannon.Request => {
    const c = (req as { connection: Connection }).connection;
    if (c.slot < 0) {
      c.slot = slots++;
      c.k = turns[c.slot] ?? 0;
    }
    const turn: Turn = { n: n++, slot: c.slot, k: c.k++ };
    turns[c.slot] = c.k;
    const made: BenchRequest = dialect.request(next(turn));
    return { ...req, ...made, headers: { ...headers, ...made.headers } };
  };
  const { result, peakRss, cpuMs } = await withUsage(target, () =>
    autocannon({
      url: target.url,
      connections: shape.connections,
      // autocannon notices the end of a run at its next sample; 100 ms keeps short runs short
      sampleInt: 100,
      // a 5,000-row list queued behind 31 others takes seconds on a busy machine; only a hang should count as an error
      timeout: 60,
      ...(shape.requests === undefined ? { duration: shape.duration } : { amount: shape.requests }),
      headers,
      requests: [{ connection: { slot: -1, k: 0 }, setupRequest } as autocannon.Request],
    }),
  );
  carried?.set(scenario.name, turns);
  const failures: Record<string, number> = { timeout: result.timeouts, 'socket error': result.errors - result.timeouts };
  for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) if (code !== String(status)) failures[code] = count;
  const errors = Object.values(failures).reduce((sum, n) => sum + n, 0);
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    failures,
    peakRss,
    cpuMsPerRequest: cpuMs === undefined ? undefined : cpuMs / Math.max(result.requests.total, 1),
  };
}
