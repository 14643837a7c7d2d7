// What the resource scores compare (noderesources resourceAllocationScorer): for each scored
// resource, the node's allocatable and what would be requested on it with this pod added.

import {
  isScalarResource,
  RESOURCE_CPU,
  RESOURCE_EPHEMERAL_STORAGE,
  RESOURCE_MEMORY,
} from '../../api/resource-names.js';
import type { Resource } from '../../api/scheduling/resource.js';
import type { NodeInfo } from '../cache/node-info.js';

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

/** cpu and memory, weight 1 each: the default of both NodeResourcesFit scoring and BalancedAllocation. */
export const DEFAULT_SCORED_RESOURCES: readonly ResourceSpec[] = [
  { name: RESOURCE_CPU, weight: 1 },
  { name: RESOURCE_MEMORY, weight: 1 },
];

/** The pod's request of each scored resource, in `resources` order. */
export function podRequestList(requests: Resource, resources: readonly ResourceSpec[]): number[] {
  return resources.map(({ name }) => {
    switch (name) {
      case RESOURCE_CPU:
        return requests.milliCPU;
      case RESOURCE_MEMORY:
        return requests.memory;
      case RESOURCE_EPHEMERAL_STORAGE:
        return requests.ephemeralStorage;
      default:
        return requests.scalarOf(name);
    }
  });
}

/**
 * Fills `allocatable[i]` / `requested[i]` for the node; both stay 0 for a resource the node does
 * not offer or an extended resource the pod does not ask for (so it is not scored).
 * `useRequested`: count existing pods' real requests (BalancedAllocation) rather than the
 * non-zero ones (LeastAllocated).
 */
export function fillAllocatableAndRequested(
  nodeInfo: NodeInfo,
  resources: readonly ResourceSpec[],
  podRequests: readonly number[],
  useRequested: boolean,
  allocatable: Float64Array,
  requested: Float64Array,
): void {
  const existing = useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
  const nodeAllocatable = nodeInfo.allocatable;
  for (let index = 0; index < resources.length; index++) {
    const name = resources[index]!.name;
    const podRequest = podRequests[index]!;
    let alloc = 0;
    let req = 0;
    if (name === RESOURCE_CPU) {
      alloc = nodeAllocatable.milliCPU;
      req = existing.milliCPU + podRequest;
    } else if (name === RESOURCE_MEMORY) {
      alloc = nodeAllocatable.memory;
      req = existing.memory + podRequest;
    } else if (name === RESOURCE_EPHEMERAL_STORAGE) {
      alloc = nodeAllocatable.ephemeralStorage;
      req = nodeInfo.requested.ephemeralStorage + podRequest;
    } else if (!(podRequest === 0 && isScalarResource(name)) && nodeAllocatable.scalar?.has(name)) {
      alloc = nodeAllocatable.scalarOf(name);
      req = nodeInfo.requested.scalarOf(name) + podRequest;
    }
    allocatable[index] = alloc;
    requested[index] = alloc === 0 ? 0 : req;
  }
}
