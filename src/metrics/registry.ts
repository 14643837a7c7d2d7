/**
 * Metrics in the Prometheus text exposition format (version 0.0.4), as Kubernetes components
 * serve them on /metrics: counters, gauges and histograms with labels, rendered on demand.
 * Imports nothing, so the control plane and the node agent both use it.
 */

/** Prometheus' default histogram buckets (client_golang's DefBuckets). */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` buckets from `start`, each `factor` times the previous (client_golang's ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (count < 1 || start <= 0 || factor <= 1) {
    throw new RangeError('exponentialBuckets needs count >= 1, start > 0 and factor > 1');
  }
  const buckets: number[] = [];
  let bound = start;
  for (let i = 0; i < count; i++) {
    buckets.push(bound);
    bound *= factor;
  }
  return buckets;
}

export interface MetricOptions {
  /** The full name, e.g. `kubelet_running_pods`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, increasing; `+Inf` is added. */
  readonly buckets: readonly number[];
}

type LabelValues = readonly string[];

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/**
 * A sample value as client_golang writes it: Go's strconv.FormatFloat(v, 'g', -1, 64), the
 * shortest digits, in exponent form from 1e+06 up and below 1e-04 (`1.137475584e+09`).
 */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
}

/** What every metric family shares: its labels, and one series per distinct label values. */
abstract class Family<Series> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, { labels: string; value: Series }>();

  constructor(options: MetricOptions) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
  }

  protected abstract readonly type: 'counter' | 'gauge' | 'histogram';
  protected abstract newSeries(): Series;
  protected abstract renderSeries(labels: string, value: Series, lines: string[]): void;

  /** The series of these label values, created on first use. */
  protected seriesOf(values: LabelValues): Series {
    if (values.length !== this.labelNames.length) {
      throw new RangeError(
        `metric ${this.name} has ${this.labelNames.length} labels, got ${values.length} values`,
      );
    }
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      const labels = this.labelNames.map((name, i) => `${name}="${escapeLabelValue(values[i]!)}"`).join(',');
      entry = { labels, value: this.newSeries() };
      this.series.set(key, entry);
    }
    return entry.value;
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const { labels, value } of this.series.values()) this.renderSeries(labels, value, lines);
  }
}

function braced(labels: string): string {
  return labels === '' ? '' : `{${labels}}`;
}

export class Counter extends Family<{ value: number }> {
  protected readonly type = 'counter';

  inc(values: LabelValues = [], by = 1): void {
    if (by < 0) throw new RangeError(`counter ${this.name} cannot decrease`);
    this.seriesOf(values).value += by;
  }

  /** The current value of one series (0 before its first increment). */
  get(values: LabelValues = []): number {
    return this.series.get(values.join('\u0000'))?.value.value ?? 0;
  }

  protected newSeries() {
    return { value: 0 };
  }

  protected renderSeries(labels: string, series: { value: number }, lines: string[]): void {
    lines.push(`${this.name}${braced(labels)} ${formatNumber(series.value)}`);
  }
}

export class Gauge extends Family<{ value: number }> {
  protected readonly type = 'gauge';

  set(values: LabelValues, value: number): void {
    this.seriesOf(values).value = value;
  }

  /** Drops every series: a collector that sets the gauge afresh starts here. */
  reset(): void {
    this.series.clear();
  }

  protected newSeries() {
    return { value: 0 };
  }

  protected renderSeries(labels: string, series: { value: number }, lines: string[]): void {
    lines.push(`${this.name}${braced(labels)} ${formatNumber(series.value)}`);
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative; summed when rendered). */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Family<HistogramSeries> {
  protected readonly type = 'histogram';
  readonly buckets: readonly number[];
  private readonly bounds: readonly string[];

  constructor(options: HistogramOptions) {
    super(options);
    for (let i = 1; i < options.buckets.length; i++) {
      if (!(options.buckets[i]! > options.buckets[i - 1]!)) {
        throw new RangeError(`histogram ${options.name}: buckets must increase`);
      }
    }
    this.buckets = options.buckets;
    this.bounds = options.buckets.map(formatNumber);
  }

  observe(values: LabelValues, value: number): void {
    const series = this.seriesOf(values);
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i++;
    if (i < this.buckets.length) series.counts[i]! += 1;
    series.sum += value;
    series.count += 1;
  }

  protected newSeries(): HistogramSeries {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }

  protected renderSeries(labels: string, series: HistogramSeries, lines: string[]): void {
    const prefix = labels === '' ? '' : `${labels},`;
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += series.counts[i]!;
      lines.push(`${this.name}_bucket{${prefix}le="${this.bounds[i]}"} ${cumulative}`);
    }
    lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${series.count}`);
    lines.push(`${this.name}_sum${braced(labels)} ${formatNumber(series.sum)}`);
    lines.push(`${this.name}_count${braced(labels)} ${series.count}`);
  }
}

/** The metrics one component serves; `render()` is the body of its /metrics. */
export class MetricsRegistry {
  private readonly families: { render(lines: string[]): void; readonly name: string }[] = [];
  private readonly collectors: (() => void)[] = [];

  counter(options: MetricOptions): Counter {
    return this.add(new Counter(options));
  }

  gauge(options: MetricOptions): Gauge {
    return this.add(new Gauge(options));
  }

  histogram(options: HistogramOptions): Histogram {
    return this.add(new Histogram(options));
  }

  /** Runs before each render: for gauges read from the component's state rather than kept. */
  onCollect(collect: () => void): void {
    this.collectors.push(collect);
  }

  render(): string {
    for (const collect of this.collectors) collect();
    const lines: string[] = [];
    for (const family of this.families) family.render(lines);
    return `${lines.join('\n')}\n`;
  }

  private add<T extends { render(lines: string[]): void; readonly name: string }>(family: T): T {
    if (this.families.some((existing) => existing.name === family.name)) {
      throw new Error(`metric ${family.name} is registered twice`);
    }
    this.families.push(family);
    return family;
  }
}
