// HorizontalPodAutoscaler: autoscaling/v1 and autoscaling/v2 are one resource stored as v2
// (pkg/apis/autoscaling/v1/conversion.go). v1 holds only a CPU utilization target; everything
// else travels in annotations so that a read-modify-write through v1 loses nothing.
import { isJsonObject, type JsonObject, type KubeObject } from '../../api/object.js';
import { encodeJsonLikeGo } from '../discovery/go-json.js';
import { convertibleKind } from './convertible-kind.js';
import { readBehaviorAnnotation, writeBehaviorAnnotation } from './horizontal-pod-autoscaler-behavior.js';
import {
  CPU,
  type HorizontalPodAutoscaler,
  type MetricSpec,
  type MetricStatus,
  RESOURCE_METRIC,
  readCondition,
  readHorizontalPodAutoscalerV2,
  readReference,
  writeHorizontalPodAutoscalerV2,
} from './horizontal-pod-autoscaler-internal.js';
import {
  readV1MetricSpec,
  readV1MetricStatus,
  writeV1MetricSpec,
  writeV1MetricStatus,
} from './horizontal-pod-autoscaler-v1-metrics.js';
import { compact, copyMetadata, JsonReader } from './json-reader.js';

/** Metrics other than a CPU utilization target, as v1 MetricSpecs. */
export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
/** Every status.currentMetrics entry, as v1 MetricStatuses. */
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
/** status.conditions. */
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
/** spec.behavior, in the internal type's encoding. */
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';

const ROUND_TRIP_ANNOTATIONS = [
  METRICS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  CONDITIONS_ANNOTATION,
];

/** The utilization autoscaling/v1 always implied when no metric is given. */
const DEFAULT_CPU_UTILIZATION = 80;

/**
 * Every version drops the round-trip annotations on the way in and out, so only the ones v1
 * computes from the object itself are ever shown. Empty annotations are omitted, as Go does.
 */
function withoutRoundTripAnnotations(metadata: JsonObject, added: Record<string, string> = {}): JsonObject {
  const result = { ...metadata };
  const annotations: Record<string, unknown> = isJsonObject(metadata.annotations)
    ? { ...metadata.annotations }
    : {};
  for (const key of ROUND_TRIP_ANNOTATIONS) delete annotations[key];
  Object.assign(annotations, added);
  if (Object.keys(annotations).length > 0) result.annotations = annotations;
  else delete result.annotations;
  return result;
}

function cpuUtilizationMetric(averageUtilization: number): MetricSpec {
  return {
    type: RESOURCE_METRIC,
    resource: { name: CPU, target: { type: 'Utilization', averageUtilization } },
  };
}

function isCpuUtilizationTarget(metric: MetricSpec): boolean {
  return (
    metric.type === RESOURCE_METRIC &&
    metric.resource?.name === CPU &&
    metric.resource.target.averageUtilization !== undefined
  );
}

/**
 * A list annotation decoded as Go's json.Unmarshal into a slice would: undefined when that fails
 * (Kubernetes then ignores the annotation); null decodes to an empty list.
 */
function readAnnotationList<T>(
  annotations: JsonObject,
  key: string,
  read: (reader: JsonReader, item: JsonObject) => T,
): T[] | undefined {
  const text = annotations[key];
  if (typeof text !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null) return [];
  const reader = new JsonReader(true);
  const items = reader.objectArray(parsed)?.map((item) => read(reader, item));
  return reader.failed ? undefined : items;
}

export function readHorizontalPodAutoscalerV1(object: KubeObject): HorizontalPodAutoscaler {
  const reader = new JsonReader(false);
  const spec = reader.object(object, 'spec') ?? {};
  const status = reader.object(object, 'status') ?? {};
  const metadata = copyMetadata(object);
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};

  const targetCPU = reader.int32(spec, 'targetCPUUtilizationPercentage');
  let metrics = targetCPU === undefined ? [] : [cpuUtilizationMetric(targetCPU)];
  const otherMetrics = readAnnotationList(annotations, METRICS_ANNOTATION, readV1MetricSpec);
  // The annotated metrics come first, then the CPU target.
  if (otherMetrics !== undefined) metrics = [...otherMetrics, ...metrics];
  if (metrics.length === 0) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];

  const currentCPU = reader.int32(status, 'currentCPUUtilizationPercentage');
  let currentMetrics: MetricStatus[] | null =
    currentCPU === undefined
      ? null
      : [{ type: RESOURCE_METRIC, resource: { name: CPU, current: { averageUtilization: currentCPU } } }];
  // The annotation has more detail than currentCPUUtilizationPercentage, so it wins.
  currentMetrics =
    readAnnotationList(annotations, CURRENT_METRICS_ANNOTATION, readV1MetricStatus) ?? currentMetrics;
  const behaviorText = annotations[BEHAVIOR_ANNOTATION];

  return {
    metadata: withoutRoundTripAnnotations(metadata),
    spec: compact({
      scaleTargetRef: readReference(reader, spec, 'scaleTargetRef'),
      minReplicas: reader.int32(spec, 'minReplicas'),
      maxReplicas: reader.int32(spec, 'maxReplicas') ?? 0,
      metrics,
      behavior: typeof behaviorText === 'string' ? readBehaviorAnnotation(behaviorText) : undefined,
    }),
    status: compact({
      observedGeneration: reader.int64(status, 'observedGeneration'),
      lastScaleTime: reader.string(status, 'lastScaleTime'),
      currentReplicas: reader.int32(status, 'currentReplicas') ?? 0,
      desiredReplicas: reader.int32(status, 'desiredReplicas') ?? 0,
      currentMetrics,
      conditions: readAnnotationList(annotations, CONDITIONS_ANNOTATION, readCondition),
    }),
  };
}

export function writeHorizontalPodAutoscalerV1(autoscaler: HorizontalPodAutoscaler): KubeObject {
  const { spec, status } = autoscaler;
  const metrics = spec.metrics ?? [];
  const currentMetrics = status.currentMetrics ?? [];
  const conditions = status.conditions ?? [];
  // The first CPU utilization target becomes the v1 field; every CPU utilization target is left
  // out of the annotation.
  const targetCPU = metrics.find(isCpuUtilizationTarget)?.resource?.target.averageUtilization;
  const otherMetrics = metrics.filter((metric) => !isCpuUtilizationTarget(metric));
  // The last CPU utilization reading wins; the annotation keeps them all, CPU included.
  let currentCPU: number | undefined;
  for (const metric of currentMetrics) {
    if (metric.type !== RESOURCE_METRIC || metric.resource?.name !== CPU) continue;
    currentCPU = metric.resource.current.averageUtilization ?? currentCPU;
  }

  const added: Record<string, string> = {};
  if (otherMetrics.length > 0)
    added[METRICS_ANNOTATION] = encodeJsonLikeGo(otherMetrics.map(writeV1MetricSpec));
  if (currentMetrics.length > 0) {
    added[CURRENT_METRICS_ANNOTATION] = encodeJsonLikeGo(currentMetrics.map(writeV1MetricStatus));
  }
  if (spec.behavior !== undefined) added[BEHAVIOR_ANNOTATION] = writeBehaviorAnnotation(spec.behavior);
  if (conditions.length > 0) added[CONDITIONS_ANNOTATION] = encodeJsonLikeGo(conditions);

  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: withoutRoundTripAnnotations(autoscaler.metadata, added),
    spec: compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      targetCPUUtilizationPercentage: targetCPU,
    }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas,
      desiredReplicas: status.desiredReplicas,
      currentCPUUtilizationPercentage: currentCPU,
    }),
  };
}

export const HORIZONTAL_POD_AUTOSCALER = convertibleKind<HorizontalPodAutoscaler>({
  kind: 'HorizontalPodAutoscaler',
  storage: { group: 'autoscaling', version: 'v2' },
  resources: [{ group: 'autoscaling', resource: 'horizontalpodautoscalers' }],
  codecs: [
    {
      group: 'autoscaling',
      version: 'v2',
      read: readHorizontalPodAutoscalerV2,
      write: (autoscaler) => {
        const written = writeHorizontalPodAutoscalerV2(autoscaler);
        return { ...written, metadata: withoutRoundTripAnnotations(autoscaler.metadata) };
      },
    },
    {
      group: 'autoscaling',
      version: 'v1',
      read: readHorizontalPodAutoscalerV1,
      write: writeHorizontalPodAutoscalerV1,
    },
  ],
});
