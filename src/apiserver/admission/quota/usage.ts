// How much quota an object consumes, by the evaluator for its resource.

import type { KubeObject } from '../../../api/object.js';
import type { QuotaEvaluator } from './evaluator.js';
import { objectCountEvaluator } from './object-count-evaluator.js';
import { podEvaluator } from './pod-evaluator.js';
import { claimEvaluator } from './pvc-evaluator.js';
import type { ResourceList } from './resource-list.js';
import { serviceEvaluator } from './service-evaluator.js';
import type { GroupResource } from './types.js';

export function evaluatorFor(resource: GroupResource): QuotaEvaluator {
  if (resource.group === '') {
    if (resource.resource === 'pods') return podEvaluator;
    if (resource.resource === 'services') return serviceEvaluator;
    if (resource.resource === 'persistentvolumeclaims') return claimEvaluator;
  }
  return objectCountEvaluator(resource);
}

/** The quota resource names `object` consumes and how much of each. */
export function usageOf(resource: GroupResource, object: KubeObject, now: Date = new Date()): ResourceList {
  return evaluatorFor(resource).usage(object, now);
}
