// PersistentVolumeClaims: the count and requested storage, overall and per storage class
// (`<class>.storageclass.storage.k8s.io/requests.storage`).

import type { KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { matchesNoScope, type QuotaEvaluator } from './evaluator.js';
import { objectField } from './pod-resources.js';
import type { ResourceList } from './resource-list.js';

export const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = ['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage'];
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** The claim's class: the beta annotation wins over spec.storageClassName. */
export function claimStorageClass(claim: KubeObject): string {
  const annotation = claim.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (annotation !== undefined) return annotation;
  const name = objectField(claim, 'spec', 'storageClassName');
  return typeof name === 'string' ? name : '';
}

function storageRequest(claim: KubeObject): Quantity | undefined {
  const requested = Quantity.tryFromJson(objectField(claim, 'spec', 'resources', 'requests', 'storage'));
  if (requested === undefined) return undefined;
  // Storage is charged in whole bytes; a larger allocation (expansion in progress) is charged instead.
  let result = requested.roundUp(0);
  const allocated = Quantity.tryFromJson(objectField(claim, 'status', 'allocatedResources', 'storage'));
  if (allocated !== undefined && allocated.cmp(result) > 0) result = allocated.roundUp(0);
  return result;
}

export function claimUsage(claim: KubeObject): ResourceList {
  const usage: ResourceList = {
    persistentvolumeclaims: Quantity.fromInteger(1),
    'count/persistentvolumeclaims': Quantity.fromInteger(1),
  };
  const storageClass = claimStorageClass(claim);
  if (storageClass !== '')
    usage[`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = Quantity.fromInteger(1);
  const storage = storageRequest(claim);
  if (storage !== undefined) {
    usage['requests.storage'] = storage;
    if (storageClass !== '') usage[`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
  }
  return usage;
}

function matchingResources(input: readonly string[]): string[] {
  return input.filter(
    (name) =>
      PVC_RESOURCES.includes(name) ||
      PVC_RESOURCES.some((resource) => name.endsWith(`${STORAGE_CLASS_SUFFIX}${resource}`)),
  );
}

export const claimEvaluator: QuotaEvaluator = {
  handles: ({ operation }) => operation === 'CREATE' || operation === 'UPDATE',
  matchingResources,
  matchesScope: matchesNoScope,
  constraints: () => undefined,
  usage: claimUsage,
};
