// Resource name classes of core/v1/helper, shared by the apiserver, the scheduler and the kubelet:
// Kubernetes' own names (unprefixed or in *kubernetes.io/) and extended resources (vendor names
// such as `example.com/gpu`).
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
