// What goes into an EndpointSlice (k8s.io/endpointslice utils): a pod as an endpoint with its
// ready/serving/terminating conditions, a service's ports resolved for one pod, the labels and
// owner of a new slice, and the identities the reconciler matches endpoints and port sets by.
import { isPodReady } from '../../api/pod-conditions.js';
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type { Node, Pod, Service } from '../../api/types/core-v1.generated.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import {
  findPort,
  HEADLESS_SERVICE_LABEL,
  isServiceIpSet,
  podReference,
  shouldSetHostname,
} from '../endpoint/pod-membership.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

export type AddressType = 'IPv4' | 'IPv6';

/**
 * A pod as an endpoint: serving when Ready, terminating while being deleted, ready when serving
 * and not terminating — or always, for services publishing not-ready addresses.
 */
export function podToEndpoint(
  pod: Pod,
  node: Node | undefined,
  service: Service,
  addressType: AddressType,
): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp !== undefined;
  const ready = service.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const zone = node?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
  return {
    addresses: podAddresses(pod, addressType),
    conditions: { ready, serving, terminating },
    ...(shouldSetHostname(pod, service) ? { hostname: pod.spec?.hostname } : {}),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    targetRef: podReference(pod),
    ...(zone ? { zone } : {}),
  };
}

function podAddresses(pod: Pod, addressType: AddressType): string[] {
  const ips = pod.status?.podIPs?.map((ip) => ip.ip) ?? [];
  return ips.filter((ip) => (ip.includes(':') ? 'IPv6' : 'IPv4') === addressType);
}

/** The service's ports as this pod serves them (ports it cannot resolve are left out). */
export function endpointPorts(service: Service, pod: Pod): EndpointPort[] {
  const ports: EndpointPort[] = [];
  for (const servicePort of service.spec?.ports ?? []) {
    const port = findPort(pod, servicePort);
    if (port === undefined) continue;
    ports.push({
      name: servicePort.name ?? '',
      port,
      protocol: servicePort.protocol ?? 'TCP',
      ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}),
    });
  }
  return ports;
}

/** The address types a service's slices carry: its IP families, else its cluster IP's, else both. */
export function addressTypesFor(service: Service): Set<AddressType> {
  const types = new Set<AddressType>();
  for (const family of service.spec?.ipFamilies ?? []) {
    if (family === 'IPv4' || family === 'IPv6') types.add(family);
  }
  if (types.size > 0) return types;
  if (isServiceIpSet(service)) return new Set([service.spec?.clusterIP?.includes(':') ? 'IPv6' : 'IPv4']);
  return new Set(['IPv4', 'IPv6']);
}

/** A new (unnamed) slice of the service: `<service>-` plus a random suffix, owned by the service. */
export function newEndpointSlice(
  service: Service,
  ports: EndpointPort[],
  addressType: AddressType,
): EndpointSlice {
  const name = service.metadata?.name ?? '';
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: service.metadata?.namespace,
      generateName: `${name}-`,
      labels: sliceLabels(undefined, service).labels,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name,
          uid: service.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType,
    endpoints: [],
    ports,
  };
}

const RESERVED_LABELS = new Set([SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_SERVICE_LABEL]);

/**
 * A slice's labels: the service's own (minus the reserved keys) plus the headless, service-name
 * and managed-by labels. `changed` says whether the service's labels differ from the slice's.
 */
export function sliceLabels(
  slice: EndpointSlice | undefined,
  service: Service,
): { labels: Record<string, string>; changed: boolean } {
  const current = Object.entries(slice?.metadata?.labels ?? {}).filter(([key]) => !RESERVED_LABELS.has(key));
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.metadata?.labels ?? {})) {
    if (!RESERVED_LABELS.has(key)) labels[key] = value;
  }
  const changed =
    current.length !== Object.keys(labels).length || current.some(([key, value]) => labels[key] !== value);
  if (!isServiceIpSet(service)) labels[HEADLESS_SERVICE_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = service.metadata?.name ?? '';
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  return { labels, changed };
}

/** The slice is controlled by this incarnation of the service. */
export function ownedBy(slice: EndpointSlice, service: Service): boolean {
  return (slice.metadata?.ownerReferences ?? []).some(
    (owner) => owner.uid === service.metadata?.uid && owner.kind === 'Service' && owner.apiVersion === 'v1',
  );
}

/** Identifies a set of ports regardless of order. */
export function portMapKey(ports: readonly EndpointPort[] | undefined): string {
  return (ports ?? [])
    .map((port) =>
      JSON.stringify([port.name ?? '', port.port ?? 0, port.protocol ?? '', port.appProtocol ?? '']),
    )
    .sort()
    .join('|');
}

/** Identifies an endpoint across syncs: its addresses, hostname and pod. */
export function endpointKey(endpoint: Endpoint): string {
  return JSON.stringify([
    [...endpoint.addresses].sort(),
    endpoint.hostname ?? '',
    endpoint.targetRef?.namespace ?? '',
    endpoint.targetRef?.name ?? '',
  ]);
}

/** Equality beyond {@link endpointKey}: node, zone, conditions and pod reference (resourceVersion aside). */
export function endpointsEqualBeyondKey(a: Endpoint, b: Endpoint): boolean {
  const ref = (endpoint: Endpoint) => {
    const target = endpoint.targetRef;
    return target
      ? [target.kind, target.namespace, target.name, target.uid, target.apiVersion, target.fieldPath]
      : null;
  };
  return (
    a.nodeName === b.nodeName &&
    a.zone === b.zone &&
    a.conditions?.ready === b.conditions?.ready &&
    a.conditions?.serving === b.conditions?.serving &&
    a.conditions?.terminating === b.conditions?.terminating &&
    JSON.stringify(ref(a)) === JSON.stringify(ref(b))
  );
}
