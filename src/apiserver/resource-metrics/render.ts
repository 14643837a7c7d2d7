// metrics-server's API objects (sigs.k8s.io/metrics-server pkg/api, k8s.io/metrics
// pkg/apis/metrics/v1beta1): NodeMetrics and PodMetrics made from the stored usage and the node or
// pod they describe, with get's NotFound and list's label and field (metadata.name) selectors.
// CPU prints as a nanocore quantity in canonical form (`123456789n`, `5m`), memory as bytes in
// binary SI (`4Ki`), as metrics-server's resource.NewScaledQuantity / NewQuantity render them.
import type { KubeObject } from '../../api/object.js';
import { Quantity } from '../../api/quantity.js';
import type { FieldSelector } from '../../api/selectors/fields.js';
import type { LabelSelector } from '../../api/selectors/label-selector.js';
import { formatGoDuration } from '../protobuf/go-format.js';
import { notFound } from '../status.js';
import type { MetricsStorage, Usage } from './storage.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_API_VERSION = `${METRICS_GROUP}/v1beta1`;

export interface ResourceUsage {
  readonly cpu: string;
  readonly memory: string;
}

export interface NodeMetrics {
  readonly kind: 'NodeMetrics';
  readonly apiVersion: typeof METRICS_API_VERSION;
  readonly metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> };
  readonly timestamp: string;
  readonly window: string;
  readonly usage: ResourceUsage;
}

export interface PodMetrics {
  readonly kind: 'PodMetrics';
  readonly apiVersion: typeof METRICS_API_VERSION;
  readonly metadata: {
    name: string;
    namespace: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
  };
  readonly timestamp: string;
  readonly window: string;
  readonly containers: { name: string; usage: ResourceUsage }[];
}

/** metav1.Time: RFC 3339 in whole seconds. */
function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** metav1.Duration as Go's time.Duration prints it (`15.002s`). */
function goDuration(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms)) * 1_000_000n);
}

export function renderUsage(usage: Pick<Usage, 'cpuNanoCores' | 'memoryBytes'>): ResourceUsage {
  return {
    cpu: Quantity.parse(`${Math.max(0, Math.round(usage.cpuNanoCores))}n`).toString(),
    memory: Quantity.fromInteger(Math.max(0, Math.round(usage.memoryBytes)), 'BinarySI').toString(),
  };
}

function labelsOf(object: KubeObject): Record<string, string> | undefined {
  const labels = object.metadata?.labels as Record<string, string> | undefined;
  return labels && Object.keys(labels).length > 0 ? labels : undefined;
}

const NODE_METRICS = { group: METRICS_GROUP, resource: 'nodemetrics' };
const POD_METRICS = { group: METRICS_GROUP, resource: 'podmetrics' };

/** The node's metrics, or undefined while it has fewer than two scrapes. */
export function nodeMetricsOf(
  storage: MetricsStorage,
  node: KubeObject,
  nowMs = Date.now(),
): NodeMetrics | undefined {
  const name = node.metadata?.name ?? '';
  const usage = storage.nodeUsage(name);
  if (!usage) return undefined;
  const labels = labelsOf(node);
  return {
    kind: 'NodeMetrics',
    apiVersion: METRICS_API_VERSION,
    metadata: { name, creationTimestamp: metaTime(nowMs), ...(labels && { labels }) },
    timestamp: metaTime(usage.timestampMs),
    window: goDuration(usage.windowMs),
    usage: renderUsage(usage),
  };
}

/** The pod's metrics, or undefined until every container has two scrapes. */
export function podMetricsOf(
  storage: MetricsStorage,
  pod: KubeObject,
  nowMs = Date.now(),
): PodMetrics | undefined {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const usage = storage.podUsage(namespace, name);
  if (!usage) return undefined;
  const containers = [...usage].map(([container, found]) => ({ name: container, usage: renderUsage(found) }));
  // The pod's window and timestamp are its first container's, as metrics-server reports them.
  const first = usage.values().next().value as Usage;
  const labels = labelsOf(pod);
  return {
    kind: 'PodMetrics',
    apiVersion: METRICS_API_VERSION,
    metadata: { name, namespace, creationTimestamp: metaTime(nowMs), ...(labels && { labels }) },
    timestamp: metaTime(first.timestampMs),
    window: goDuration(first.windowMs),
    containers,
  };
}

/** get nodemetrics/<name>: NotFound for an unknown node and for one without metrics yet. */
export function getNodeMetrics(
  storage: MetricsStorage,
  name: string,
  node: KubeObject | undefined,
): NodeMetrics {
  const metrics = node && nodeMetricsOf(storage, node);
  if (!metrics) throw notFound(NODE_METRICS, name);
  return metrics;
}

/** get podmetrics/<name> in a namespace: NotFound likewise. */
export function getPodMetrics(
  storage: MetricsStorage,
  name: string,
  pod: KubeObject | undefined,
): PodMetrics {
  const metrics = pod && podMetricsOf(storage, pod);
  if (!metrics) throw notFound(POD_METRICS, name);
  return metrics;
}

export interface MetricsSelectors {
  readonly labels?: LabelSelector;
  readonly fields?: FieldSelector;
}

function selected(object: KubeObject, selectors: MetricsSelectors): boolean {
  const metadata = object.metadata ?? {};
  if (selectors.labels && !selectors.labels.matches((metadata.labels ?? {}) as Record<string, string>)) {
    return false;
  }
  if (!selectors.fields) return true;
  return selectors.fields.matches((field) => {
    if (field === 'metadata.name') return metadata.name ?? '';
    if (field === 'metadata.namespace') return metadata.namespace ?? '';
    return undefined;
  });
}

/** list nodemetrics: the selected nodes that have metrics, by name. */
export function listNodeMetrics(
  storage: MetricsStorage,
  nodes: readonly KubeObject[],
  selectors: MetricsSelectors = {},
): { kind: 'NodeMetricsList'; apiVersion: string; metadata: Record<string, never>; items: NodeMetrics[] } {
  const items = nodes
    .filter((node) => selected(node, selectors))
    .map((node) => nodeMetricsOf(storage, node))
    .filter((item): item is NodeMetrics => item !== undefined)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  return { kind: 'NodeMetricsList', apiVersion: METRICS_API_VERSION, metadata: {}, items };
}

/** list podmetrics (in a namespace or all): the selected pods that have metrics. */
export function listPodMetrics(
  storage: MetricsStorage,
  pods: readonly KubeObject[],
  selectors: MetricsSelectors = {},
): { kind: 'PodMetricsList'; apiVersion: string; metadata: Record<string, never>; items: PodMetrics[] } {
  const items = pods
    .filter((pod) => selected(pod, selectors))
    .map((pod) => podMetricsOf(storage, pod))
    .filter((item): item is PodMetrics => item !== undefined);
  return { kind: 'PodMetricsList', apiVersion: METRICS_API_VERSION, metadata: {}, items };
}
