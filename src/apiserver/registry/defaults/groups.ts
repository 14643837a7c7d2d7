// Defaults of the batch, networking, autoscaling, scheduling, storage and discovery kinds.

import { defaultPodTemplate } from '../../../api/defaults/pod.js';
import { canonicalizeQuantity } from '../../../api/defaults/quantities.js';
import { isJsonObject, type JsonObject } from '../../../api/object.js';

function ensure(parent: JsonObject, key: string): JsonObject {
  const existing = parent[key];
  if (isJsonObject(existing)) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function unset(value: unknown): boolean {
  return value === undefined || value === null;
}

const MAX_INT32 = 2147483647;

/** SetDefaults_Job (JobPodReplacementPolicy is on in 1.33). */
export function defaultJob(job: JsonObject): void {
  const spec = ensure(job, 'spec');
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : MAX_INT32;
  const template = ensure(spec, 'template');
  const templateLabels = isJsonObject(template.metadata) ? template.metadata.labels : undefined;
  const meta = ensure(job, 'metadata');
  if (isJsonObject(templateLabels) && (!isJsonObject(meta.labels) || Object.keys(meta.labels).length === 0)) {
    meta.labels = { ...templateLabels };
  }
  if (unset(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (unset(spec.suspend)) spec.suspend = false;
  const failurePolicy = isJsonObject(spec.podFailurePolicy) ? spec.podFailurePolicy : undefined;
  for (const rule of objects(failurePolicy?.rules)) {
    for (const pattern of objects(rule.onPodConditions))
      if (unset(pattern.status) || pattern.status === '') pattern.status = 'True';
  }
  if (unset(spec.podReplacementPolicy))
    spec.podReplacementPolicy = failurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
  if (unset(spec.manualSelector)) spec.manualSelector = false;
  defaultPodTemplate(template);
}

/** SetDefaults_CronJob; the job template gets only pod-template defaults (not Job ones). */
export function defaultCronJob(cronJob: JsonObject): void {
  const spec = ensure(cronJob, 'spec');
  if (unset(spec.concurrencyPolicy) || spec.concurrencyPolicy === '') spec.concurrencyPolicy = 'Allow';
  if (unset(spec.suspend)) spec.suspend = false;
  if (unset(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (unset(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  const jobTemplate = ensure(spec, 'jobTemplate');
  // JobTemplateSpec's ObjectMeta is a struct: Go writes its zero creationTimestamp as null.
  const jobMeta = ensure(jobTemplate, 'metadata');
  if (jobMeta.creationTimestamp === undefined) jobMeta.creationTimestamp = null;
  const jobSpec = ensure(jobTemplate, 'spec');
  const failurePolicy = isJsonObject(jobSpec.podFailurePolicy) ? jobSpec.podFailurePolicy : undefined;
  for (const rule of objects(failurePolicy?.rules)) {
    for (const pattern of objects(rule.onPodConditions))
      if (unset(pattern.status) || pattern.status === '') pattern.status = 'True';
  }
  defaultPodTemplate(ensure(jobSpec, 'template'));
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
export function defaultNetworkPolicy(policy: JsonObject): void {
  const spec = ensure(policy, 'spec');
  // PodSelector is a struct: Go always writes it.
  ensure(spec, 'podSelector');
  for (const direction of ['ingress', 'egress']) {
    for (const rule of objects(spec[direction])) {
      for (const port of objects(rule.ports)) if (unset(port.protocol)) port.protocol = 'TCP';
    }
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes =
      Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/** SetDefaults_IngressClass: parameters are cluster-scoped unless said otherwise. */
export function defaultIngressClass(ingressClass: JsonObject): void {
  const spec = ensure(ingressClass, 'spec');
  const parameters = spec.parameters;
  if (isJsonObject(parameters) && unset(parameters.scope)) parameters.scope = 'Cluster';
}

const DEFAULT_CPU_UTILIZATION = 80;

function scalingRules(given: unknown, defaults: JsonObject): JsonObject {
  if (!isJsonObject(given)) return defaults;
  const result = { ...defaults };
  if (!unset(given.selectPolicy)) result.selectPolicy = given.selectPolicy;
  if (!unset(given.stabilizationWindowSeconds))
    result.stabilizationWindowSeconds = given.stabilizationWindowSeconds;
  if (!unset(given.policies)) result.policies = given.policies;
  return result;
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v2). */
export function defaultHorizontalPodAutoscaler(autoscaler: JsonObject): void {
  const spec = ensure(autoscaler, 'spec');
  if (unset(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  }
  for (const metric of objects(spec.metrics)) {
    for (const source of ['object', 'pods', 'resource', 'containerResource', 'external']) {
      const target = isJsonObject(metric[source]) ? (metric[source] as JsonObject).target : undefined;
      if (isJsonObject(target)) {
        canonicalizeQuantity(target, 'value');
        canonicalizeQuantity(target, 'averageValue');
      }
    }
  }
  const behavior = spec.behavior;
  if (isJsonObject(behavior)) {
    behavior.scaleUp = scalingRules(behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    behavior.scaleDown = scalingRules(behavior.scaleDown, {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
  }
}

/** SetDefaults_PriorityClass. */
export function defaultPriorityClass(priorityClass: JsonObject): void {
  if (unset(priorityClass.preemptionPolicy)) priorityClass.preemptionPolicy = 'PreemptLowerPriority';
}

/** SetDefaults_StorageClass. */
export function defaultStorageClass(storageClass: JsonObject): void {
  if (unset(storageClass.reclaimPolicy)) storageClass.reclaimPolicy = 'Delete';
  if (unset(storageClass.volumeBindingMode)) storageClass.volumeBindingMode = 'Immediate';
}

/** SetDefaults_EndpointPort: an empty name and TCP. */
export function defaultEndpointSlice(slice: JsonObject): void {
  for (const port of objects(slice.ports)) {
    if (unset(port.name)) port.name = '';
    if (unset(port.protocol)) port.protocol = 'TCP';
  }
}
