// The internal HorizontalPodAutoscaler (pkg/apis/autoscaling) every served version converts through.
// Its shape is autoscaling/v2's, so it is read from and written to v2 JSON field by field; objects
// are built in v2's field order so that the written JSON matches what kube-apiserver sends.
import type { JsonObject, KubeObject } from '../../api/object.js';
import { compact, copyMetadata, JsonReader, nonEmpty } from './json-reader.js';
import { type LabelSelector, readLabelSelector } from './label-selector.js';

export interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion?: string;
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

export interface MetricTarget {
  type: string;
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricValueStatus {
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricSpec {
  type: string;
  object?: { describedObject: CrossVersionObjectReference; target: MetricTarget; metric: MetricIdentifier };
  pods?: { metric: MetricIdentifier; target: MetricTarget };
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; target: MetricTarget; container: string };
  external?: { metric: MetricIdentifier; target: MetricTarget };
}

export interface MetricStatus {
  type: string;
  object?: {
    metric: MetricIdentifier;
    current: MetricValueStatus;
    describedObject: CrossVersionObjectReference;
  };
  pods?: { metric: MetricIdentifier; current: MetricValueStatus };
  resource?: { name: string; current: MetricValueStatus };
  containerResource?: { name: string; current: MetricValueStatus; container: string };
  external?: { metric: MetricIdentifier; current: MetricValueStatus };
}

export interface HorizontalPodAutoscalerCondition {
  type: string;
  status: string;
  /** null is Go's zero metav1.Time, which is written as null. */
  lastTransitionTime: string | null;
  reason?: string;
  message?: string;
}

export interface ScalingPolicy {
  type: string;
  value: number;
  periodSeconds: number;
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  /** An empty list is kept apart from an absent one: the v1 behavior annotation shows the difference. */
  policies?: ScalingPolicy[];
  tolerance?: string;
}

export interface Behavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

export interface HorizontalPodAutoscaler {
  metadata: JsonObject;
  spec: {
    scaleTargetRef: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas: number;
    metrics?: MetricSpec[];
    behavior?: Behavior;
  };
  status: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas: number;
    desiredReplicas: number;
    /** null for Go's nil slice (written as null: the field has no omitempty), [] for an empty one. */
    currentMetrics: MetricStatus[] | null;
    conditions?: HorizontalPodAutoscalerCondition[];
  };
}

export const CPU = 'cpu';
export const RESOURCE_METRIC = 'Resource';

export function readReference(
  reader: JsonReader,
  source: JsonObject,
  name: string,
): CrossVersionObjectReference {
  const reference = reader.object(source, name) ?? {};
  return compact({
    kind: reader.string(reference, 'kind') ?? '',
    name: reader.string(reference, 'name') ?? '',
    apiVersion: nonEmpty(reader.string(reference, 'apiVersion')),
  });
}

export function readCondition(reader: JsonReader, condition: JsonObject): HorizontalPodAutoscalerCondition {
  return compact({
    type: reader.string(condition, 'type') ?? '',
    status: reader.string(condition, 'status') ?? '',
    lastTransitionTime: reader.string(condition, 'lastTransitionTime') ?? null,
    reason: nonEmpty(reader.string(condition, 'reason')),
    message: nonEmpty(reader.string(condition, 'message')),
  });
}

function readIdentifier(reader: JsonReader, source: JsonObject): MetricIdentifier {
  const metric = reader.object(source, 'metric') ?? {};
  return compact({
    name: reader.string(metric, 'name') ?? '',
    selector: readLabelSelector(reader, metric, 'selector'),
  });
}

function readTarget(reader: JsonReader, source: JsonObject): MetricTarget {
  const target = reader.object(source, 'target') ?? {};
  return compact({
    type: reader.string(target, 'type') ?? '',
    value: reader.quantity(target, 'value'),
    averageValue: reader.quantity(target, 'averageValue'),
    averageUtilization: reader.int32(target, 'averageUtilization'),
  });
}

function readCurrent(reader: JsonReader, source: JsonObject): MetricValueStatus {
  const current = reader.object(source, 'current') ?? {};
  return compact({
    value: reader.quantity(current, 'value'),
    averageValue: reader.quantity(current, 'averageValue'),
    averageUtilization: reader.int32(current, 'averageUtilization'),
  });
}

function readMetricSpec(reader: JsonReader, metric: JsonObject): MetricSpec {
  const object = reader.object(metric, 'object');
  const pods = reader.object(metric, 'pods');
  const resource = reader.object(metric, 'resource');
  const containerResource = reader.object(metric, 'containerResource');
  const external = reader.object(metric, 'external');
  return compact({
    type: reader.string(metric, 'type') ?? '',
    object: object && {
      describedObject: readReference(reader, object, 'describedObject'),
      target: readTarget(reader, object),
      metric: readIdentifier(reader, object),
    },
    pods: pods && { metric: readIdentifier(reader, pods), target: readTarget(reader, pods) },
    resource: resource && {
      name: reader.string(resource, 'name') ?? '',
      target: readTarget(reader, resource),
    },
    containerResource: containerResource && {
      name: reader.string(containerResource, 'name') ?? '',
      target: readTarget(reader, containerResource),
      container: reader.string(containerResource, 'container') ?? '',
    },
    external: external && { metric: readIdentifier(reader, external), target: readTarget(reader, external) },
  });
}

function readMetricStatus(reader: JsonReader, metric: JsonObject): MetricStatus {
  const object = reader.object(metric, 'object');
  const pods = reader.object(metric, 'pods');
  const resource = reader.object(metric, 'resource');
  const containerResource = reader.object(metric, 'containerResource');
  const external = reader.object(metric, 'external');
  return compact({
    type: reader.string(metric, 'type') ?? '',
    object: object && {
      metric: readIdentifier(reader, object),
      current: readCurrent(reader, object),
      describedObject: readReference(reader, object, 'describedObject'),
    },
    pods: pods && { metric: readIdentifier(reader, pods), current: readCurrent(reader, pods) },
    resource: resource && {
      name: reader.string(resource, 'name') ?? '',
      current: readCurrent(reader, resource),
    },
    containerResource: containerResource && {
      name: reader.string(containerResource, 'name') ?? '',
      current: readCurrent(reader, containerResource),
      container: reader.string(containerResource, 'container') ?? '',
    },
    external: external && {
      metric: readIdentifier(reader, external),
      current: readCurrent(reader, external),
    },
  });
}

function readScalingRules(reader: JsonReader, behavior: JsonObject, name: string): ScalingRules | undefined {
  const rules = reader.object(behavior, name);
  if (rules === undefined) return undefined;
  return compact({
    stabilizationWindowSeconds: reader.int32(rules, 'stabilizationWindowSeconds'),
    selectPolicy: reader.string(rules, 'selectPolicy'),
    policies: reader.objects(rules, 'policies')?.map((policy) => ({
      type: reader.string(policy, 'type') ?? '',
      value: reader.int32(policy, 'value') ?? 0,
      periodSeconds: reader.int32(policy, 'periodSeconds') ?? 0,
    })),
    tolerance: reader.quantity(rules, 'tolerance'),
  });
}

/** Decodes autoscaling/v2 JSON (a stored object or a request body already checked for types). */
export function readHorizontalPodAutoscalerV2(object: KubeObject): HorizontalPodAutoscaler {
  const reader = new JsonReader(false);
  const spec = reader.object(object, 'spec') ?? {};
  const status = reader.object(object, 'status') ?? {};
  const behavior = reader.object(spec, 'behavior');
  const conditions = reader.objects(status, 'conditions');
  return {
    metadata: copyMetadata(object),
    spec: compact({
      scaleTargetRef: readReference(reader, spec, 'scaleTargetRef'),
      minReplicas: reader.int32(spec, 'minReplicas'),
      maxReplicas: reader.int32(spec, 'maxReplicas') ?? 0,
      metrics: reader.objects(spec, 'metrics')?.map((metric) => readMetricSpec(reader, metric)),
      behavior:
        behavior &&
        compact({
          scaleUp: readScalingRules(reader, behavior, 'scaleUp'),
          scaleDown: readScalingRules(reader, behavior, 'scaleDown'),
        }),
    }),
    status: compact({
      observedGeneration: reader.int64(status, 'observedGeneration'),
      lastScaleTime: reader.string(status, 'lastScaleTime'),
      currentReplicas: reader.int32(status, 'currentReplicas') ?? 0,
      desiredReplicas: reader.int32(status, 'desiredReplicas') ?? 0,
      currentMetrics:
        reader.objects(status, 'currentMetrics')?.map((metric) => readMetricStatus(reader, metric)) ?? null,
      conditions: conditions?.map((condition) => readCondition(reader, condition)),
    }),
  };
}

/** Encodes as autoscaling/v2 JSON with Go's omitempty rules (the internal objects are v2-shaped). */
export function writeHorizontalPodAutoscalerV2(autoscaler: HorizontalPodAutoscaler): KubeObject {
  const { spec, status } = autoscaler;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: autoscaler.metadata,
    spec: compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      metrics: spec.metrics !== undefined && spec.metrics.length > 0 ? spec.metrics : undefined,
      behavior: spec.behavior && writeBehaviorV2(spec.behavior),
    }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas === 0 ? undefined : status.currentReplicas,
      desiredReplicas: status.desiredReplicas,
      currentMetrics: status.currentMetrics,
      conditions:
        status.conditions !== undefined && status.conditions.length > 0 ? status.conditions : undefined,
    }),
  };
}

function writeBehaviorV2(behavior: Behavior): JsonObject {
  const rules = (given: ScalingRules | undefined) =>
    given &&
    compact({
      ...given,
      policies: given.policies !== undefined && given.policies.length > 0 ? given.policies : undefined,
    });
  return compact({ scaleUp: rules(behavior.scaleUp), scaleDown: rules(behavior.scaleDown) });
}
