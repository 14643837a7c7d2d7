import { describe, expect, it } from 'vitest';
import { DEFAULT_BUCKETS, exponentialBuckets, MetricsRegistry } from '../../../src/metrics/index.js';
import { formatNumber } from '../../../src/metrics/registry.js';

describe('the metrics registry', () => {
  it('renders counters and gauges in the text exposition format', () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter({
      name: 'demo_requests_total',
      help: 'Requests.',
      labelNames: ['code'],
    });
    const up = registry.gauge({ name: 'demo_up', help: 'Whether it is up.' });
    requests.inc(['200']);
    requests.inc(['200'], 2);
    requests.inc(['404']);
    up.set([], 1);
    expect(registry.render()).toBe(
      [
        '# HELP demo_requests_total Requests.',
        '# TYPE demo_requests_total counter',
        'demo_requests_total{code="200"} 3',
        'demo_requests_total{code="404"} 1',
        '# HELP demo_up Whether it is up.',
        '# TYPE demo_up gauge',
        'demo_up 1',
        '',
      ].join('\n'),
    );
    expect(requests.get(['200'])).toBe(3);
    expect(requests.get(['500'])).toBe(0);
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', () => {
    const registry = new MetricsRegistry();
    const latency = registry.histogram({
      name: 'demo_seconds',
      help: 'Latency.',
      labelNames: ['verb'],
      buckets: [0.1, 1, 10],
    });
    for (const value of [0.05, 0.1, 0.5, 5, 50]) latency.observe(['GET'], value);
    expect(registry.render().split('\n')).toEqual([
      '# HELP demo_seconds Latency.',
      '# TYPE demo_seconds histogram',
      'demo_seconds_bucket{verb="GET",le="0.1"} 2',
      'demo_seconds_bucket{verb="GET",le="1"} 3',
      'demo_seconds_bucket{verb="GET",le="10"} 4',
      'demo_seconds_bucket{verb="GET",le="+Inf"} 5',
      'demo_seconds_sum{verb="GET"} 55.65',
      'demo_seconds_count{verb="GET"} 5',
      '',
    ]);
  });

  it('escapes label values and help text', () => {
    const registry = new MetricsRegistry();
    registry
      .counter({ name: 'demo_total', help: 'back\\slash\nnewline', labelNames: ['path'] })
      .inc(['a "quoted" \\ path\nnext']);
    expect(registry.render()).toContain('# HELP demo_total back\\\\slash\\nnewline\n');
    expect(registry.render()).toContain('demo_total{path="a \\"quoted\\" \\\\ path\\nnext"} 1\n');
  });

  it('runs collectors before rendering, and a reset gauge loses its old series', () => {
    const registry = new MetricsRegistry();
    const states = registry.gauge({ name: 'demo_containers', help: 'Containers.', labelNames: ['state'] });
    let current = new Map([['running', 2]]);
    registry.onCollect(() => {
      states.reset();
      for (const [state, count] of current) states.set([state], count);
    });
    expect(registry.render()).toContain('demo_containers{state="running"} 2\n');
    current = new Map([['exited', 1]]);
    const text = registry.render();
    expect(text).toContain('demo_containers{state="exited"} 1\n');
    expect(text).not.toContain('state="running"');
  });

  it('refuses misuse', () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter({ name: 'demo_total', help: 'x', labelNames: ['a'] });
    expect(() => counter.inc([])).toThrow('metric demo_total has 1 labels, got 0 values');
    expect(() => counter.inc(['x'], -1)).toThrow('cannot decrease');
    expect(() => registry.gauge({ name: 'demo_total', help: 'again' })).toThrow('registered twice');
    expect(() => registry.histogram({ name: 'demo_h', help: 'x', buckets: [1, 1] })).toThrow(
      'buckets must increase',
    );
  });

  it('has client_golang buckets', () => {
    expect(DEFAULT_BUCKETS).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    const runtime = exponentialBuckets(0.005, 2.5, 14);
    expect(runtime).toHaveLength(14);
    expect(runtime[0]).toBe(0.005);
    expect(runtime[1]).toBeCloseTo(0.0125, 12);
    expect(runtime[13]).toBeCloseTo(0.005 * 2.5 ** 13, 6);
    expect(() => exponentialBuckets(0, 2, 3)).toThrow(RangeError);
  });
});

describe('formatNumber', () => {
  it('writes values as client_golang does (Go strconv.FormatFloat, g, shortest)', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [1, '1'],
      [147.507315, '147.507315'],
      [123_456, '123456'],
      [1_234_567, '1.234567e+06'],
      [1_137_475_584, '1.137475584e+09'],
      [1_750_607_841.8297591, '1.7506078418297591e+09'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [2.5e-7, '2.5e-07'],
      [1e21, '1e+21'],
      [-3_000_000, '-3e+06'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, '+Inf'],
      [Number.NEGATIVE_INFINITY, '-Inf'],
    ];
    for (const [value, text] of cases) expect(formatNumber(value), String(value)).toBe(text);
  });
});
