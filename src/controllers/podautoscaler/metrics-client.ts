// The HPA controller's resource metrics (pkg/controller/podautoscaler/metrics: MetricsClient and
// its resourceMetricsClient): the PodMetrics of `metrics.k8s.io/v1beta1` listed by label
// selector, summed per pod (or read for one container) as milli-units. Behind an interface so
// tests can feed readings the metrics server would give.
import { parseGoDurationMs } from '../../api/go-duration.js';
import { Quantity } from '../../api/quantity.js';
import type { ObjectMeta } from '../../api/types/meta-v1.generated.js';
import type { Client, ResourceRef } from '../../client/types.js';

/** One pod's reading: the value in milli-units, when it was taken and over how long. */
export interface PodMetric {
  readonly value: number;
  readonly timestamp: Date;
  readonly windowMs: number;
}

/** Readings by pod name. */
export type PodMetricsInfo = Map<string, PodMetric>;

export interface ResourceMetrics {
  readonly metrics: PodMetricsInfo;
  /** The first item's timestamp, as upstream reports it. */
  readonly timestamp: Date;
}

export interface MetricsClient {
  /**
   * The usage of `resource` by the pods of `namespace` that `selector` (label selector text)
   * selects; of one container of each when `container` is not ''. Throws with upstream's message.
   */
  getResourceMetric(
    resource: string,
    namespace: string,
    selector: string,
    container: string,
  ): Promise<ResourceMetrics>;
}

/** metrics.k8s.io/v1beta1 PodMetrics as the metrics server serves them. */
export interface PodMetrics {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  timestamp?: string;
  /** A Go duration: `15s`, `1m0s`. */
  window?: string;
  containers?: { name?: string; usage?: Record<string, string | number> }[];
}

/** metav1.Time's zero value, for a reading without a timestamp. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

export const POD_METRICS: ResourceRef = Object.freeze({
  group: 'metrics.k8s.io',
  version: 'v1beta1',
  resource: 'pods',
  kind: 'PodMetrics',
  namespaced: true,
});

/** The resource metrics API through the controller's client (upstream's REST metrics client). */
export class RestMetricsClient implements MetricsClient {
  constructor(private readonly client: Client) {}

  async getResourceMetric(
    resource: string,
    namespace: string,
    selector: string,
    container: string,
  ): Promise<ResourceMetrics> {
    let items: PodMetrics[];
    try {
      items = (
        await this.client.resource<PodMetrics>(POD_METRICS).list(namespace, { labelSelector: selector })
      ).items;
    } catch (error) {
      throw new Error(`unable to fetch metrics from resource metrics API: ${errorText(error)}`);
    }
    return resourceMetricsOf(items, resource, container);
  }
}

/** getPodMetrics / getContainerMetrics over listed PodMetrics. */
export function resourceMetricsOf(
  items: readonly PodMetrics[],
  resource: string,
  container: string,
): ResourceMetrics {
  const first = items[0];
  if (first === undefined) throw new Error('no metrics returned from resource metrics API');
  const metrics: PodMetricsInfo = new Map();
  for (const item of items) {
    const name = item.metadata?.name ?? '';
    const reading = {
      timestamp: new Date(item.timestamp ?? GO_ZERO_TIME),
      // Unreadable is 0, as a zero metav1.Duration.
      windowMs: parseGoDurationMs(item.window ?? '') ?? 0,
    };
    const containers = item.containers ?? [];
    if (container !== '') {
      const found = containers.find((entry) => entry.name === container);
      if (found === undefined) {
        throw new Error(
          `failed to get container metrics: container ${container} not present in metrics for pod ${item.metadata?.namespace ?? ''}/${name}`,
        );
      }
      const usage = found.usage?.[resource];
      if (usage !== undefined) metrics.set(name, { ...reading, value: milli(usage) });
      continue;
    }
    // A pod missing the resource in any container (or with no containers) has no reading.
    if (containers.length === 0) continue;
    let sum = 0;
    let complete = true;
    for (const entry of containers) {
      const usage = entry.usage?.[resource];
      if (usage === undefined) {
        complete = false;
        break;
      }
      sum += milli(usage);
    }
    if (complete) metrics.set(name, { ...reading, value: sum });
  }
  return { metrics, timestamp: new Date(first.timestamp ?? GO_ZERO_TIME) };
}

function milli(value: string | number): number {
  return Number(Quantity.fromJson(value).milliValue());
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
