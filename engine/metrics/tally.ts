/**
 * Counters and histograms for the hot paths (every request, every statement), kept as plain
 * numbers per series and read by prom-client only when scraped. prom-client's own metrics validate
 * and hash their labels on every observation: with METRICS=true a detail request cost 9% more CPU.
 * A series is looked up once by a key the caller builds from its label values; observing it is a
 * few additions. Both register on prom-client's registry as metrics whose `get()` answers what its
 * own answer, so the text format and the cluster's sum over workers stay prom-client's.
 */
import type { Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string>;

/** A sample as prom-client's metrics answer it from `get()`. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads from a metric when it is scraped. */
interface Scraped {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

abstract class Tally<L extends string, S extends { labels: Labels<L> }> {
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of `labels`, found by `key`: a string naming the label values, the same for the same values. */
  of(key: string, labels: Labels<L>): S {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.create(labels)));
    return s;
  }

  protected abstract create(labels: Labels<L>): S;

  protected all(): IterableIterator<S> {
    return this.series.values();
  }
}

export interface CounterSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

export class TallyCounter<L extends string> extends Tally<L, CounterSeries<L>> {
  readonly type = 'counter' as const;

  protected create(labels: Labels<L>): CounterSeries<L> {
    return { labels, value: 0 };
  }

  get(): Scraped {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.all()].map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

export interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket, not cumulative: the last counts those above every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

export class TallyHistogram<L extends string> extends Tally<L, HistogramSeries<L>> {
  readonly type = 'histogram' as const;

  constructor(name: string, help: string, registry: Registry, private readonly bounds: readonly number[]) {
    super(name, help, registry);
  }

  protected create(labels: Labels<L>): HistogramSeries<L> {
    return { labels, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }

  observe(s: HistogramSeries<L>, value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    s.buckets[i]!++;
    s.sum += value;
    s.count++;
  }

  get(): Scraped {
    const values: Sample[] = [];
    for (const s of this.all()) {
      let cumulative = 0;
      for (const [i, le] of [...this.bounds, '+Inf' as const].entries()) {
        cumulative += s.buckets[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` }, { labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
