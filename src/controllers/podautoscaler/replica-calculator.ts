// The HPA's replica calculator (pkg/controller/podautoscaler/replica_calculator.go): how many
// replicas bring the selected pods' resource usage to the target, as a utilization of their
// requests or as a raw average. Deleted and failed pods are ignored; pending pods, and for cpu
// pods not yet ready (or ready too recently for a full metrics window), are counted as using
// nothing on a scale-up only; pods without a reading count as using 0 on a scale-up and their
// full request (or the target) on a scale-down; changes within the tolerance are no change.

import { Quantity } from '../../api/quantity.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { MetricsClient, PodMetricsInfo } from './metrics-client.js';

/** metav1.Time's zero value: what an unset time compares as. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** --horizontal-pod-autoscaler-tolerance. */
export const DEFAULT_TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period. */
export const DEFAULT_CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay. */
export const DEFAULT_INITIAL_READINESS_DELAY_MS = 30_000;

export interface ReplicaCalculatorOptions {
  readonly tolerance?: number;
  readonly cpuInitializationPeriodMs?: number;
  readonly delayOfInitialReadinessStatusMs?: number;
  readonly now?: () => number;
}

/** The pods of a namespace a label selector (text) selects. */
export type PodSource = (namespace: string, selector: string) => readonly Pod[];

/** Whose readings: a resource of the pods a selector (text) picks, or of one container of each ('' for all). */
export interface ResourceQuery {
  readonly resource: string;
  readonly namespace: string;
  readonly selector: string;
  readonly container: string;
}

export interface UtilizationProposal {
  readonly replicas: number;
  /** Percent of the requests (integer, rounded down). */
  readonly utilization: number;
  /** Average milli-units per pod with a reading. */
  readonly rawUtilization: number;
  readonly timestamp: Date;
}

export interface RawProposal {
  readonly replicas: number;
  /** Average milli-units per pod with a reading. */
  readonly usage: number;
  readonly timestamp: Date;
}

export class ReplicaCalculator {
  private readonly tolerance: number;
  private readonly cpuInitializationPeriodMs: number;
  private readonly delayOfInitialReadinessStatusMs: number;
  private readonly now: () => number;

  constructor(
    private readonly metricsClient: MetricsClient,
    private readonly pods: PodSource,
    options: ReplicaCalculatorOptions = {},
  ) {
    this.tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
    this.cpuInitializationPeriodMs =
      options.cpuInitializationPeriodMs ?? DEFAULT_CPU_INITIALIZATION_PERIOD_MS;
    this.delayOfInitialReadinessStatusMs =
      options.delayOfInitialReadinessStatusMs ?? DEFAULT_INITIAL_READINESS_DELAY_MS;
    this.now = options.now ?? Date.now;
  }

  /** GetResourceReplicas: against a target utilization (percent of the pods' requests). */
  async getResourceReplicas(
    currentReplicas: number,
    targetUtilization: number,
    query: ResourceQuery,
  ): Promise<UtilizationProposal> {
    const { metrics, timestamp, podList, groups } = await this.readyReadings(query);
    const requests = podRequests(podList, query.container, query.resource);
    const first = utilizationRatio(metrics, requests, targetUtilization);
    const { utilization, rawAverage: rawUtilization } = first;
    const usageRatio = first.ratio;
    const result = (replicas: number) => ({ replicas, utilization, rawUtilization, timestamp });

    const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1;
    if (!scaleUpWithUnready && groups.missing.size === 0) {
      if (Math.abs(1 - usageRatio) <= this.tolerance) return result(currentReplicas);
      return result(Math.ceil(usageRatio * groups.readyCount));
    }
    if (groups.missing.size > 0) {
      // Scaling down, a pod without a reading uses its full request (or the target above 100 %); scaling up, nothing.
      const fallback = Math.max(100, targetUtilization);
      for (const name of groups.missing) {
        if (usageRatio < 1)
          metrics.set(name, reading(Math.trunc(((requests.get(name) ?? 0) * fallback) / 100)));
        else if (usageRatio > 1) metrics.set(name, reading(0));
      }
    }
    if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, reading(0));
    const newUsageRatio = utilizationRatio(metrics, requests, targetUtilization).ratio;
    return result(this.rebalanced(currentReplicas, usageRatio, newUsageRatio, metrics.size));
  }

  /** GetRawResourceReplicas: against a target average value (milli-units per pod). */
  async getRawResourceReplicas(
    currentReplicas: number,
    targetUsage: number,
    query: ResourceQuery,
  ): Promise<RawProposal> {
    const { metrics, timestamp, groups } = await this.readyReadings(query);
    const first = usageRatioOf(metrics, targetUsage);
    const usageRatio = first.ratio;
    const usage = first.average;
    const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1;
    if (!scaleUpWithUnready && groups.missing.size === 0) {
      if (Math.abs(1 - usageRatio) <= this.tolerance) return { replicas: currentReplicas, usage, timestamp };
      return { replicas: Math.ceil(usageRatio * groups.readyCount), usage, timestamp };
    }
    if (groups.missing.size > 0) {
      // Scaling down, a pod without a reading uses exactly the target; scaling up, nothing.
      for (const name of groups.missing) {
        if (usageRatio < 1) metrics.set(name, reading(targetUsage));
        else if (usageRatio > 1) metrics.set(name, reading(0));
      }
    }
    if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, reading(0));
    const newUsageRatio = usageRatioOf(metrics, targetUsage).ratio;
    return {
      replicas: this.rebalanced(currentReplicas, usageRatio, newUsageRatio, metrics.size),
      usage,
      timestamp,
    };
  }

  /** The second pass: no change when within tolerance or when the filled-in pods reverse the direction. */
  private rebalanced(
    currentReplicas: number,
    usageRatio: number,
    newUsageRatio: number,
    counted: number,
  ): number {
    if (
      Math.abs(1 - newUsageRatio) <= this.tolerance ||
      (usageRatio < 1 && newUsageRatio > 1) ||
      (usageRatio > 1 && newUsageRatio < 1)
    ) {
      return currentReplicas;
    }
    const newReplicas = Math.ceil(newUsageRatio * counted);
    if (
      (newUsageRatio < 1 && newReplicas > currentReplicas) ||
      (newUsageRatio > 1 && newReplicas < currentReplicas)
    ) {
      return currentReplicas;
    }
    return newReplicas;
  }

  /** The readings of the selected pods, less those of ignored and unready pods (at least one left). */
  private async readyReadings(query: ResourceQuery) {
    const { resource, namespace, selector, container } = query;
    let fetched: Awaited<ReturnType<MetricsClient['getResourceMetric']>>;
    try {
      fetched = await this.metricsClient.getResourceMetric(resource, namespace, selector, container);
    } catch (error) {
      throw new Error(
        `unable to get metrics for resource ${resource}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const metrics = new Map(fetched.metrics);
    const podList = this.listPods(namespace, selector);
    const groups = groupPods(
      podList,
      metrics,
      resource,
      this.cpuInitializationPeriodMs,
      this.delayOfInitialReadinessStatusMs,
      this.now(),
    );
    for (const name of [...groups.ignored, ...groups.unready]) metrics.delete(name);
    if (metrics.size === 0)
      throw new Error('did not receive metrics for targeted pods (pods might be unready)');
    return { metrics, timestamp: fetched.timestamp, podList, groups };
  }

  private listPods(namespace: string, selector: string): readonly Pod[] {
    const pods = this.pods(namespace, selector);
    if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
    return pods;
  }
}

function reading(value: number) {
  return { value, timestamp: new Date(0), windowMs: 0 };
}

interface PodGroups {
  readyCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

/** groupPods: ready, unready (pending; for cpu, not ready or ready too recently), without a reading, ignored. */
export function groupPods(
  pods: readonly Pod[],
  metrics: PodMetricsInfo,
  resource: string,
  cpuInitializationPeriodMs: number,
  delayOfInitialReadinessStatusMs: number,
  now: number,
): PodGroups {
  const groups: PodGroups = { readyCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') {
      groups.ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      groups.unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (metric === undefined) {
      groups.missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const condition = pod.status?.conditions?.find((entry) => entry.type === 'Ready');
      const startTime = pod.status?.startTime === undefined ? Number.NaN : Date.parse(pod.status.startTime);
      let unready: boolean;
      if (condition === undefined || Number.isNaN(startTime)) {
        unready = true;
      } else {
        const transition = Date.parse(condition.lastTransitionTime ?? GO_ZERO_TIME);
        if (startTime + cpuInitializationPeriodMs > now) {
          // Within its initialization: a sample counts once the pod is ready and a full window followed.
          unready = condition.status === 'False' || metric.timestamp.getTime() < transition + metric.windowMs;
        } else {
          // Later, only a pod that has never been ready is left out.
          unready = condition.status === 'False' && startTime + delayOfInitialReadinessStatusMs > transition;
        }
      }
      if (unready) {
        groups.unready.add(name);
        continue;
      }
    }
    groups.readyCount++;
  }
  return groups;
}

/** calculatePodRequests: each pod's request of the resource (one container's, or all), milli-units. */
export function podRequests(pods: readonly Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const entry of pod.spec?.containers ?? []) {
      if (container !== '' && container !== entry.name) continue;
      const request = entry.resources?.requests?.[resource];
      if (request === undefined) {
        throw new Error(
          `missing request for ${resource} in container ${entry.name} of Pod ${pod.metadata?.name ?? ''}`,
        );
      }
      sum += Number(Quantity.fromJson(request).milliValue());
    }
    requests.set(pod.metadata?.name ?? '', sum);
  }
  return requests;
}

/** GetResourceUtilizationRatio over the pods with both a reading and a request. */
export function utilizationRatio(
  metrics: PodMetricsInfo,
  requests: ReadonlyMap<string, number>,
  targetUtilization: number,
): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entries = 0;
  for (const [name, metric] of metrics) {
    const request = requests.get(name);
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    entries++;
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return {
    ratio: utilization / targetUtilization,
    utilization,
    rawAverage: Math.trunc(metricsTotal / entries),
  };
}

/** GetMetricUsageRatio: the average reading against the target average. */
export function usageRatioOf(
  metrics: PodMetricsInfo,
  targetUsage: number,
): { ratio: number; average: number } {
  let total = 0;
  for (const metric of metrics.values()) total += metric.value;
  const average = Math.trunc(total / metrics.size);
  return { ratio: average / targetUsage, average };
}
