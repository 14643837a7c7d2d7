// What the proxy needs of a Service, one entry per port (pkg/proxy/service.go's
// BaseServicePortInfo): the addresses it is reached at, its traffic policies and affinity.
// Services the proxy leaves alone (headless, ExternalName, another proxy's) give none.
import type { Service } from '../../api/types/core-v1.generated.js';
import {
  clusterPolicyChain,
  externalChain,
  firewallChain,
  type LowerProtocol,
  localPolicyChain,
  servicePortNameString,
} from './chain-names.js';

/** Label of services (and their slices) handled by a proxy other than the default one. */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
/** Label the endpointslice controller puts on the slices of a headless service. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** The informers' label selector, as kube-proxy's (cmd/kube-proxy/app/server.go). */
export const PROXY_LABEL_SELECTOR = `!${SERVICE_PROXY_NAME_LABEL},!${HEADLESS_LABEL}`;

/** The default `sessionAffinityConfig.clientIP.timeoutSeconds` (3 hours). */
const DEFAULT_STICKY_SECONDS = 10800;

export interface ServicePortInfo {
  readonly namespace: string;
  readonly name: string;
  /** The port's name in the service (`''` when unnamed). */
  readonly portName: string;
  /** `ns/name:port`, as kube-proxy writes it into comments and hashes. */
  readonly nameString: string;
  readonly protocol: LowerProtocol;
  readonly clusterIP: string;
  readonly port: number;
  /** 0 when the service has none. */
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerVIPs: readonly string[];
  readonly loadBalancerSourceRanges: readonly string[];
  /** 0 unless a LoadBalancer service with `externalTrafficPolicy: Local`. */
  readonly healthCheckNodePort: number;
  /** 0 without `sessionAffinity: ClientIP`. */
  readonly stickyMaxAgeSeconds: number;
  readonly internalPolicyLocal: boolean;
  readonly externalPolicyLocal: boolean;
  readonly clusterPolicyChain: string;
  readonly localPolicyChain: string;
  readonly firewallChain: string;
  readonly externalChain: string;
}

function isIPv4(address: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(address);
}

function lowerProtocol(protocol: string | undefined): LowerProtocol | undefined {
  switch (protocol ?? 'TCP') {
    case 'TCP':
      return 'tcp';
    case 'UDP':
      return 'udp';
    case 'SCTP':
      return 'sctp';
    default:
      return undefined;
  }
}

/** Whether traffic from outside reaches the service port (NodePort, LB address, external IP). */
export function externallyAccessible(info: ServicePortInfo): boolean {
  return info.nodePort !== 0 || info.loadBalancerVIPs.length > 0 || info.externalIPs.length > 0;
}

/** Whether some traffic to the port uses endpoints on every node. */
export function usesClusterEndpoints(info: ServicePortInfo): boolean {
  return !info.internalPolicyLocal || (externallyAccessible(info) && !info.externalPolicyLocal);
}

/** Whether some traffic to the port uses only this node's endpoints. */
export function usesLocalEndpoints(info: ServicePortInfo): boolean {
  return info.internalPolicyLocal || (info.externalPolicyLocal && externallyAccessible(info));
}

/** The service's proxied ports; none for a service the proxy skips. IPv4 only (the cluster's family). */
export function servicePortsOf(service: Service): ServicePortInfo[] {
  const meta = service.metadata ?? {};
  const spec = service.spec ?? {};
  if (meta.labels?.[SERVICE_PROXY_NAME_LABEL] !== undefined) return [];
  if (spec.type === 'ExternalName') return [];
  const clusterIP = [spec.clusterIP, ...(spec.clusterIPs ?? [])].find(
    (ip): ip is string => ip !== undefined && ip !== 'None' && isIPv4(ip),
  );
  if (!clusterIP) return [];
  const namespace = meta.namespace ?? 'default';
  const name = meta.name ?? '';
  const type = spec.type ?? 'ClusterIP';
  const serviceExternallyAccessible =
    type === 'LoadBalancer' || type === 'NodePort' || (spec.externalIPs?.length ?? 0) > 0;
  const externalPolicyLocal = serviceExternallyAccessible && spec.externalTrafficPolicy === 'Local';
  const internalPolicyLocal = spec.internalTrafficPolicy === 'Local';
  const stickyMaxAgeSeconds =
    spec.sessionAffinity === 'ClientIP'
      ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_STICKY_SECONDS)
      : 0;
  const healthCheckNodePort =
    type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' ? (spec.healthCheckNodePort ?? 0) : 0;
  const loadBalancerVIPs = (service.status?.loadBalancer?.ingress ?? [])
    .filter((ingress) => ingress.ip && isIPv4(ingress.ip) && (ingress.ipMode ?? 'VIP') === 'VIP')
    .map((ingress) => ingress.ip!);
  const ports: ServicePortInfo[] = [];
  for (const port of spec.ports ?? []) {
    const protocol = lowerProtocol(port.protocol);
    if (!protocol || !Number.isInteger(port.port) || port.port < 1 || port.port > 65535) continue;
    const portName = port.name ?? '';
    const nameString = servicePortNameString(namespace, name, portName);
    ports.push({
      namespace,
      name,
      portName,
      nameString,
      protocol,
      clusterIP,
      port: port.port,
      nodePort: port.nodePort ?? 0,
      externalIPs: (spec.externalIPs ?? []).filter(isIPv4),
      loadBalancerVIPs,
      loadBalancerSourceRanges: (spec.loadBalancerSourceRanges ?? [])
        .map((range) => range.trim())
        .filter((range) => isIPv4(range.split('/')[0]!)),
      healthCheckNodePort,
      stickyMaxAgeSeconds,
      internalPolicyLocal,
      externalPolicyLocal,
      clusterPolicyChain: clusterPolicyChain(nameString, protocol),
      localPolicyChain: localPolicyChain(nameString, protocol),
      firewallChain: firewallChain(nameString, protocol),
      externalChain: externalChain(nameString, protocol),
    });
  }
  return ports;
}
