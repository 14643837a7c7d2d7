// Which resource names the scheduler counts how (pkg/scheduler/util and core/v1/helper): cpu,
// memory, ephemeral-storage and pods have fields of their own; everything else the scheduler
// tracks is a "scalar" resource (extended resources, hugepages, kubernetes.io/ prefixed ones).
import { isExtendedResourceName } from '../../api/resource-names.js';

export const RESOURCE_CPU = 'cpu';
export const RESOURCE_MEMORY = 'memory';
export const RESOURCE_EPHEMERAL_STORAGE = 'ephemeral-storage';
export const RESOURCE_PODS = 'pods';

const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';

const scalarVerdicts = new Map<string, boolean>();

/** schedutil.IsScalarResourceName: extended, hugepages-*, kubernetes.io/* or attachable-volumes-*. */
export function isScalarResource(name: string): boolean {
  let verdict = scalarVerdicts.get(name);
  if (verdict === undefined) {
    verdict =
      isExtendedResourceName(name) ||
      name.startsWith('hugepages-') ||
      (name.includes('/') && name.includes(DEFAULT_NAMESPACE_PREFIX)) ||
      name.startsWith('attachable-volumes-');
    scalarVerdicts.set(name, verdict);
  }
  return verdict;
}
