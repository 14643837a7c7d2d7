// Effective pod requests and limits (k8s.io/component-helpers/resource PodRequests/PodLimits):
// app containers and sidecars add up, plain init containers only raise the maximum.

import { isJsonObject, type JsonObject } from '../../../api/object.js';
import { addInto, maxInto, parseResourceList, type ResourceList } from './resource-list.js';

export interface PodResourceOptions {
  /** Add spec.overhead (the quota does; the LimitRanger does not). */
  includeOverhead?: boolean;
  /** Count what the kubelet reports in status as well (in-place resize, on by default in 1.33). */
  useStatusResources?: boolean;
}

type Side = 'requests' | 'limits';

export function objectField(object: unknown, ...path: string[]): unknown {
  let current: unknown = object;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

export function podContainers(pod: unknown, field: 'containers' | 'initContainers'): JsonObject[] {
  const list = objectField(pod, 'spec', field);
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

export function containerResources(container: unknown, side: Side): ResourceList {
  return parseResourceList(objectField(container, 'resources', side));
}

function isSidecar(container: JsonObject): boolean {
  return container.restartPolicy === 'Always';
}

function statusResources(pod: unknown, side: Side): Map<string, ResourceList[]> {
  const byName = new Map<string, ResourceList[]>();
  const statuses = objectField(pod, 'status', 'containerStatuses');
  if (!Array.isArray(statuses)) return byName;
  for (const status of statuses) {
    if (!isJsonObject(status) || typeof status.name !== 'string' || !isJsonObject(status.resources)) continue;
    const lists = [parseResourceList(status.resources[side])];
    if (side === 'requests') lists.push(parseResourceList(status.allocatedResources));
    byName.set(status.name, lists);
  }
  return byName;
}

function sumPod(pod: unknown, side: Side, options: PodResourceOptions): ResourceList {
  const total: ResourceList = {};
  const reported = options.useStatusResources
    ? statusResources(pod, side)
    : new Map<string, ResourceList[]>();
  for (const container of podContainers(pod, 'containers')) {
    const own: ResourceList = { ...containerResources(container, side) };
    const fromStatus = typeof container.name === 'string' ? reported.get(container.name) : undefined;
    for (const list of fromStatus ?? []) maxInto(own, list);
    addInto(total, own);
  }
  const sidecars: ResourceList = {};
  const initMaximum: ResourceList = {};
  for (const container of podContainers(pod, 'initContainers')) {
    const own = containerResources(container, side);
    if (isSidecar(container)) {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initMaximum, sidecars);
    } else {
      const whileRunning: ResourceList = { ...own };
      addInto(whileRunning, sidecars);
      maxInto(initMaximum, whileRunning);
    }
  }
  maxInto(total, initMaximum);
  return total;
}

export function podRequests(pod: unknown, options: PodResourceOptions = {}): ResourceList {
  const requests = sumPod(pod, 'requests', options);
  if (options.includeOverhead) addInto(requests, parseResourceList(objectField(pod, 'spec', 'overhead')));
  return requests;
}

export function podLimits(pod: unknown, options: PodResourceOptions = {}): ResourceList {
  const limits = sumPod(pod, 'limits', options);
  if (options.includeOverhead) {
    // Overhead only raises limits that are set: an unlimited resource stays unlimited.
    const overhead = parseResourceList(objectField(pod, 'spec', 'overhead'));
    for (const [name, quantity] of Object.entries(overhead)) {
      if (Object.hasOwn(limits, name)) limits[name] = limits[name]!.add(quantity);
    }
  }
  return limits;
}
