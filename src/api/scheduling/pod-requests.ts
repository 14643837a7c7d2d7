// What a pod asks of a node (resourcehelper.PodRequests): the sum of its containers, raised to the
// largest init-container step (sidecars — init containers with restartPolicy Always — keep
// running and add to everything after them), plus the pod overhead.

import { RESOURCE_CPU, RESOURCE_MEMORY } from '../resource-names.js';
import type { Container, Pod } from '../types/core-v1.generated.js';
import { Resource } from './resource.js';

/** The requests scoring assumes for a container that sets none (schedutil.DefaultMilliCPURequest …). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

function containerRequests(container: Container, nonMissingDefaults: boolean): Resource {
  const requests = container.resources?.requests;
  const resource = Resource.fromList(requests);
  if (nonMissingDefaults) {
    // Only a request that is absent gets the default; an explicit 0 stays 0.
    if (requests === undefined || !Object.hasOwn(requests, RESOURCE_CPU)) {
      resource.milliCPU += DEFAULT_MILLI_CPU_REQUEST;
    }
    if (requests === undefined || !Object.hasOwn(requests, RESOURCE_MEMORY)) {
      resource.memory += DEFAULT_MEMORY_REQUEST;
    }
  }
  return resource;
}

/**
 * The pod's effective requests. With `nonMissingDefaults`, containers without a cpu or memory
 * request count as 100m / 200Mi (what scoring uses so that best-effort pods still spread).
 */
export function podRequests(pod: Pod, nonMissingDefaults = false): Resource {
  const spec = pod.spec;
  const total = new Resource();
  if (spec === undefined) return total;
  for (const container of spec.containers ?? []) total.add(containerRequests(container, nonMissingDefaults));
  const initContainers = spec.initContainers;
  if (initContainers !== undefined && initContainers.length > 0) {
    const sidecars = new Resource();
    const initMax = new Resource();
    for (const container of initContainers) {
      const requests = containerRequests(container, nonMissingDefaults);
      let step: Resource;
      if (container.restartPolicy === 'Always') {
        total.add(requests);
        sidecars.add(requests);
        step = sidecars;
      } else {
        step = requests.clone();
        step.add(sidecars);
      }
      initMax.setMax(step);
    }
    total.setMax(initMax);
  }
  if (spec.overhead !== undefined) total.addList(spec.overhead);
  return total;
}
