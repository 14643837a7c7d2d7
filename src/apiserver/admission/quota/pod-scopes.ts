// Which quota scopes select a pod: Terminating, BestEffort, PriorityClass, CrossNamespacePodAffinity.

import { isJsonObject, type KubeObject } from '../../../api/object.js';
import { containerResources, objectField, podContainers } from './pod-resources.js';
import type { ScopedResourceSelectorRequirement } from './types.js';

/** A pod with activeDeadlineSeconds ends by itself. */
export function isTerminating(pod: KubeObject): boolean {
  const deadline = objectField(pod, 'spec', 'activeDeadlineSeconds');
  return typeof deadline === 'number' && deadline >= 0;
}

/** QoS class BestEffort: no container asks for or caps cpu or memory. */
export function isBestEffort(pod: KubeObject): boolean {
  const reported = objectField(pod, 'status', 'qosClass');
  if (typeof reported === 'string' && reported !== '') return reported === 'BestEffort';
  for (const container of [...podContainers(pod, 'containers'), ...podContainers(pod, 'initContainers')]) {
    for (const side of ['requests', 'limits'] as const) {
      const list = containerResources(container, side);
      for (const name of ['cpu', 'memory']) {
        if (Object.hasOwn(list, name) && list[name]!.sign() > 0) return false;
      }
    }
  }
  return true;
}

function hasCrossNamespaceTerm(terms: unknown, weighted: boolean): boolean {
  if (!Array.isArray(terms)) return false;
  return terms.some((entry) => {
    const term = weighted ? objectField(entry, 'podAffinityTerm') : entry;
    if (!isJsonObject(term)) return false;
    const namespaces = term.namespaces;
    return (Array.isArray(namespaces) && namespaces.length > 0) || (term.namespaceSelector ?? null) !== null;
  });
}

export function usesCrossNamespacePodAffinity(pod: KubeObject): boolean {
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const affinity = objectField(pod, 'spec', 'affinity', kind);
    if (!isJsonObject(affinity)) continue;
    if (hasCrossNamespaceTerm(affinity.requiredDuringSchedulingIgnoredDuringExecution, false)) return true;
    if (hasCrossNamespaceTerm(affinity.preferredDuringSchedulingIgnoredDuringExecution, true)) return true;
  }
  return false;
}

function priorityClassMatches(pod: KubeObject, selector: ScopedResourceSelectorRequirement): boolean {
  const value = objectField(pod, 'spec', 'priorityClassName');
  const priorityClass = typeof value === 'string' ? value : '';
  if (selector.operator === 'Exists') return priorityClass !== '';
  // Evaluated as a label selector over {PriorityClass: <name>}, the label absent when there is no class.
  const present = priorityClass !== '';
  const values = selector.values ?? [];
  switch (selector.operator) {
    case 'In':
      return present && values.includes(priorityClass);
    case 'NotIn':
      return !present || !values.includes(priorityClass);
    case 'DoesNotExist':
      return !present;
    default:
      return false;
  }
}

export function podMatchesScope(selector: ScopedResourceSelectorRequirement, pod: KubeObject): boolean {
  switch (selector.scopeName) {
    case 'Terminating':
      return isTerminating(pod);
    case 'NotTerminating':
      return !isTerminating(pod);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass':
      return priorityClassMatches(pod, selector);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}
