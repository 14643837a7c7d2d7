// Values the downward API exposes: pod fields (fieldRef) and container resources
// (resourceFieldRef), formatted as the kubelet writes them into files and environment variables.
import { Quantity } from '../../../api/quantity.js';
import { goQuote } from '../../../api/selectors/go-text.js';
import { isQualifiedName } from '../../../api/selectors/name-validation.js';
import type { Container, Pod, ResourceFieldSelector } from '../../../api/types/core-v1.generated.js';

/** Node allocatable resources by name (`cpu`, `memory`, `ephemeral-storage`, ...), as quantities. */
export type ResourceList = Readonly<Record<string, string>>;

/** Labels and annotations as files show them: sorted `key="value"` lines, Go-quoted values. */
export function formatMap(map: Readonly<Record<string, string>> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${goQuote(map![key]!)}`)
    .join('\n');
}

/** `metadata.labels['key']` → [`metadata.labels`, `key`]. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const at = inner.indexOf("['");
  if (at <= 0) return undefined;
  return [inner.slice(0, at), inner.slice(at + 2)];
}

/**
 * A pod field as text. Volumes support the metadata fields; `envFields` adds what only
 * environment variables may read (node name, IPs, service account).
 */
export function podFieldValue(pod: Pod, fieldPath: string, envFields = false): string {
  const meta = pod.metadata ?? {};
  const subscripted = splitSubscript(fieldPath);
  if (subscripted) {
    const [path, key] = subscripted;
    if (path === 'metadata.annotations' || path === 'metadata.labels') {
      const problems = isQualifiedName(path === 'metadata.annotations' ? key.toLowerCase() : key);
      if (problems.length > 0)
        throw new Error(`invalid key subscript in ${fieldPath}: ${problems.join(';')}`);
      return (path === 'metadata.annotations' ? meta.annotations : meta.labels)?.[key] ?? '';
    }
    throw new Error(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(meta.annotations);
    case 'metadata.labels':
      return formatMap(meta.labels);
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
  }
  if (envFields) {
    const status = pod.status ?? {};
    switch (fieldPath) {
      case 'spec.nodeName':
        return pod.spec?.nodeName ?? '';
      case 'spec.serviceAccountName':
        return pod.spec?.serviceAccountName ?? '';
      case 'status.hostIP':
        return status.hostIP ?? '';
      case 'status.hostIPs':
        return (status.hostIPs ?? []).map((ip) => ip.ip).join(',');
      case 'status.podIP':
        return status.podIP ?? '';
      case 'status.podIPs':
        return (status.podIPs ?? []).map((ip) => ip.ip).join(',');
    }
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

function findContainer(pod: Pod, name: string): Container {
  const container =
    pod.spec?.containers?.find((c) => c.name === name) ??
    pod.spec?.initContainers?.find((c) => c.name === name);
  if (!container) throw new Error(`container ${name} not found`);
  return container;
}

function ceilDiv(value: bigint, divisor: bigint): bigint {
  if (divisor === 0n) throw new Error('division by zero');
  const quotient = value / divisor;
  return value % divisor !== 0n && value > 0n === divisor > 0n ? quotient + 1n : quotient;
}

const STANDARD = new Set(['cpu', 'memory', 'ephemeral-storage']);

/**
 * A container resource (`limits.cpu`, `requests.memory`, ...) divided by the divisor and rounded
 * up. Limits the container does not set are the node's allocatable amounts.
 */
export function containerResourceValue(
  selector: ResourceFieldSelector,
  pod: Pod,
  containerName: string,
  allocatable: ResourceList,
): string {
  const container = findContainer(pod, containerName);
  const divisorText = selector.divisor === undefined ? '' : String(selector.divisor);
  const parsedDivisor = divisorText === '' ? undefined : Quantity.parse(divisorText);
  const divisor = parsedDivisor === undefined || parsedDivisor.isZero() ? Quantity.parse('1') : parsedDivisor;
  const [kind, name] = splitResource(selector.resource);
  if (kind === undefined || (!STANDARD.has(name) && !name.startsWith('hugepages-'))) {
    throw new Error(`unsupported container resource : ${selector.resource}`);
  }
  const source = kind === 'limits' ? container.resources?.limits : container.resources?.requests;
  let text = source?.[name] === undefined ? undefined : String(source[name]);
  if (text === undefined && kind === 'limits' && allocatable[name] !== undefined) text = allocatable[name];
  const amount = text === undefined ? Quantity.parse('0') : Quantity.parse(text);
  const result =
    name === 'cpu'
      ? ceilDiv(amount.milliValue(), divisor.milliValue())
      : ceilDiv(amount.value(), divisor.value());
  return result.toString();
}

function splitResource(resource: string): [('limits' | 'requests') | undefined, string] {
  for (const kind of ['limits', 'requests'] as const) {
    if (resource.startsWith(`${kind}.`)) return [kind, resource.slice(kind.length + 1)];
  }
  return [undefined, resource];
}
