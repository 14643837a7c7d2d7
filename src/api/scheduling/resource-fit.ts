// Whether a pod's requests fit what a node has left (scheduler noderesources.fitsRequest): the
// scheduler's NodeResourcesFit filter and the kubelet's admission of a pod both ask it.
import { isExtendedResourceName } from '../resource-names.js';
import type { Resource } from './resource.js';

export interface InsufficientResource {
  readonly resourceName: string;
  readonly reason: string;
  readonly requested: number;
  readonly used: number;
  readonly capacity: number;
}

/** What fitting needs to know of a node: what it offers, what its pods request, how many there are. */
export interface NodeResources {
  readonly allocatable: Resource;
  readonly requested: Resource;
  readonly pods: { readonly length: number };
}

/** The resources the node lacks for the pod (noderesources.fitsRequest). */
export function insufficientResources(
  request: Resource,
  nodeInfo: NodeResources,
  ignoredResources: ReadonlySet<string> = new Set(),
  ignoredGroups: ReadonlySet<string> = new Set(),
): InsufficientResource[] {
  const result: InsufficientResource[] = [];
  const allocatable = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > allocatable.allowedPodNumber) {
    result.push({
      resourceName: 'pods',
      reason: 'Too many pods',
      requested: 1,
      used: nodeInfo.pods.length,
      capacity: allocatable.allowedPodNumber,
    });
  }
  const scalars = request.scalar;
  if (
    request.milliCPU === 0 &&
    request.memory === 0 &&
    request.ephemeralStorage === 0 &&
    (scalars === null || scalars.size === 0)
  ) {
    return result;
  }
  if (request.milliCPU > 0 && request.milliCPU > allocatable.milliCPU - used.milliCPU) {
    result.push({
      resourceName: 'cpu',
      reason: 'Insufficient cpu',
      requested: request.milliCPU,
      used: used.milliCPU,
      capacity: allocatable.milliCPU,
    });
  }
  if (request.memory > 0 && request.memory > allocatable.memory - used.memory) {
    result.push({
      resourceName: 'memory',
      reason: 'Insufficient memory',
      requested: request.memory,
      used: used.memory,
      capacity: allocatable.memory,
    });
  }
  if (
    request.ephemeralStorage > 0 &&
    request.ephemeralStorage > allocatable.ephemeralStorage - used.ephemeralStorage
  ) {
    result.push({
      resourceName: 'ephemeral-storage',
      reason: 'Insufficient ephemeral-storage',
      requested: request.ephemeralStorage,
      used: used.ephemeralStorage,
      capacity: allocatable.ephemeralStorage,
    });
  }
  if (scalars !== null) {
    for (const [name, quantity] of scalars) {
      if (quantity === 0) continue;
      if (isExtendedResourceName(name)) {
        const group = name.split('/')[0] ?? '';
        if (ignoredResources.has(name) || ignoredGroups.has(group)) continue;
      }
      if (quantity > allocatable.scalarOf(name) - used.scalarOf(name)) {
        result.push({
          resourceName: name,
          reason: `Insufficient ${name}`,
          requested: quantity,
          used: used.scalarOf(name),
          capacity: allocatable.scalarOf(name),
        });
      }
    }
  }
  return result;
}
