// Resource name classes of core/v1/helper and pkg/scheduler/util, shared by the apiserver, the
// scheduler and the kubelet: Kubernetes' own names (unprefixed or in *kubernetes.io/), extended
// resources (vendor names such as `example.com/gpu`), and what the scheduler counts as a "scalar"
// resource (everything but cpu, memory, ephemeral-storage and pods, which have fields of their own).
import { isQualifiedName } from './selectors/name-validation.js';

const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';
const REQUESTS_PREFIX = 'requests.';

/** v1helper.IsNativeResource: unprefixed names and names in *kubernetes.io/. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes(DEFAULT_NAMESPACE_PREFIX);
}

/** v1helper.IsExtendedResourceName: a qualified name outside kubernetes.io, not `requests.`-prefixed. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`).length === 0;
}

export const RESOURCE_CPU = 'cpu';
export const RESOURCE_MEMORY = 'memory';
export const RESOURCE_EPHEMERAL_STORAGE = 'ephemeral-storage';
export const RESOURCE_PODS = 'pods';

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
