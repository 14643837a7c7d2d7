// Pods: the count, compute requests and limits, hugepages and extended resources.

import type { KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { isExtendedResourceName } from '../../../api/resource-names.js';
import type { QuotaEvaluator } from './evaluator.js';
import { containerResources, objectField, podContainers, podLimits, podRequests } from './pod-resources.js';
import { isTerminating, podMatchesScope } from './pod-scopes.js';
import { addLists, has, intersection, type ResourceList } from './resource-list.js';

const POD_RESOURCES = [
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const HUGEPAGES_PREFIX = 'hugepages-';
const POD_RESOURCE_PREFIXES = [HUGEPAGES_PREFIX, `requests.${HUGEPAGES_PREFIX}`];

/**
 * Quota tracking any of these forces every container to set it (a historical mistake Kubernetes
 * keeps for compatibility).
 */
const MUST_SPECIFY = new Set([
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);

function isExtendedQuotaName(name: string): boolean {
  return name.startsWith('requests.') && isExtendedResourceName(name.slice('requests.'.length));
}

/** The quota names one set of requests and limits consume (podComputeUsageHelper). */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const usage: ResourceList = { pods: Quantity.fromInteger(1) };
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    if (has(requests, name)) {
      usage[name] = requests[name]!;
      usage[`requests.${name}`] = requests[name]!;
    }
    if (has(limits, name)) usage[`limits.${name}`] = limits[name]!;
  }
  for (const [name, quantity] of Object.entries(requests)) {
    if (name.startsWith(HUGEPAGES_PREFIX)) {
      usage[name] = quantity;
      usage[`requests.${name}`] = quantity;
    }
    if (isExtendedResourceName(name)) usage[`requests.${name}`] = quantity;
  }
  return usage;
}

/** Pods that ended, or are past their deletion grace period, no longer hold compute quota. */
export function podHoldsComputeQuota(pod: KubeObject, now: Date): boolean {
  const phase = objectField(pod, 'status', 'phase');
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined && grace !== undefined) {
    const deadline = Date.parse(deletion) + grace * 1000;
    if (now.getTime() > deadline) return false;
  }
  return true;
}

export function podUsage(pod: KubeObject, now: Date): ResourceList {
  // count/pods follows the object in storage; everything else only while the pod is live.
  const usage: ResourceList = { 'count/pods': Quantity.fromInteger(1) };
  if (!podHoldsComputeQuota(pod, now)) return usage;
  const options = { includeOverhead: true, useStatusResources: true };
  return addLists(usage, computeUsage(podRequests(pod, options), podLimits(pod, options)));
}

function constraints(required: readonly string[], pod: KubeObject): string | undefined {
  const requiredSet = required.filter((name) => MUST_SPECIFY.has(name));
  const missing = new Map<string, Set<string>>();
  for (const container of [...podContainers(pod, 'containers'), ...podContainers(pod, 'initContainers')]) {
    const usage = computeUsage(
      containerResources(container, 'requests'),
      containerResources(container, 'limits'),
    );
    const name = typeof container.name === 'string' ? container.name : '';
    for (const resource of requiredSet) {
      if (has(usage, resource)) continue;
      const names = missing.get(resource) ?? new Set<string>();
      names.add(name);
      missing.set(resource, names);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()]
    .sort()
    .map((resource) => `${resource} for: ${[...missing.get(resource)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

export const podEvaluator: QuotaEvaluator = {
  handles: ({ operation, subresource, object, oldObject }) => {
    if (subresource === 'resize') return operation === 'UPDATE';
    if (subresource !== '') return false;
    // Moving between the Terminating and NotTerminating scopes changes which quotas hold the pod.
    if (
      operation === 'UPDATE' &&
      oldObject !== undefined &&
      isTerminating(oldObject) !== isTerminating(object)
    ) {
      return true;
    }
    return operation === 'CREATE';
  },
  matchingResources: (input) => [
    ...intersection(input, POD_RESOURCES),
    ...input.filter(
      (name) => POD_RESOURCE_PREFIXES.some((prefix) => name.startsWith(prefix)) || isExtendedQuotaName(name),
    ),
  ],
  matchesScope: podMatchesScope,
  constraints,
  usage: podUsage,
};
