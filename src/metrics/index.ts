export {
  Counter,
  DEFAULT_BUCKETS,
  exponentialBuckets,
  Gauge,
  Histogram,
  type HistogramOptions,
  type MetricOptions,
  MetricsRegistry,
} from './registry.js';
