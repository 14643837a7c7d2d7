// The endpoints of each service port, read from the service's EndpointSlices as kube-proxy's
// endpointslice cache reads them (pkg/proxy/endpointslicecache.go): a slice port's name and
// protocol pick the service port, so a targetPort given by name resolves per endpoint; the first
// address of an endpoint counts; the same ip:port in two slices counts once. Which of them a node
// uses follows pkg/proxy/topology.go: the endpoints' node and zone hints, where every ready
// endpoint has one and some is meant for this node (or its zone).
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { endpointChain, type LowerProtocol, servicePortNameString } from './chain-names.js';
import { SERVICE_PROXY_NAME_LABEL } from './service-ports.js';

/** The label naming an EndpointSlice's service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface EndpointInfo {
  readonly ip: string;
  readonly port: number;
  /** `ip:port`. */
  readonly endpoint: string;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /** On this node. */
  readonly isLocal: boolean;
  readonly chain: string;
  /** `hints.forNodes`: the nodes that should use this endpoint (empty: no hint). */
  readonly nodeHints: ReadonlySet<string>;
  /** `hints.forZones`: the zones that should use this endpoint (empty: no hint). */
  readonly zoneHints: ReadonlySet<string>;
}

/** Where this proxy runs, as topology hints name it. */
export interface ProxyTopology {
  readonly nodeName: string;
  /** The node's `topology.kubernetes.io/zone` label; empty when unlabelled. */
  readonly zone: string;
}

const NO_HINTS: ReadonlySet<string> = new Set();

function hintNames(hints: readonly { name?: string }[] | undefined): ReadonlySet<string> {
  if (!Array.isArray(hints) || hints.length === 0) return NO_HINTS;
  const names = new Set<string>();
  for (const hint of hints) if (typeof hint?.name === 'string' && hint.name !== '') names.add(hint.name);
  return names.size > 0 ? names : NO_HINTS;
}

/** Key of one service port: `ns/name:port` and its protocol. */
export function servicePortKey(nameString: string, protocol: LowerProtocol): string {
  return `${nameString}/${protocol}`;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Endpoints by service port key, each list sorted by address. Malformed entries are skipped. */
export function endpointsBySlicePort(
  slices: Iterable<EndpointSlice>,
  nodeName: string,
): Map<string, EndpointInfo[]> {
  const byPort = new Map<string, Map<string, EndpointInfo>>();
  for (const slice of slices) {
    const labels = slice.metadata?.labels ?? {};
    const service = labels[SERVICE_NAME_LABEL];
    if (!service || labels[SERVICE_PROXY_NAME_LABEL] !== undefined || slice.addressType !== 'IPv4') continue;
    const namespace = slice.metadata?.namespace ?? 'default';
    for (const port of Array.isArray(slice.ports) ? slice.ports : []) {
      const protocol = (port.protocol ?? 'TCP').toLowerCase();
      if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'sctp') continue;
      if (!Number.isInteger(port.port) || port.port! < 1 || port.port! > 65535) continue;
      const nameString = servicePortNameString(namespace, service, port.name ?? '');
      const key = servicePortKey(nameString, protocol);
      let endpoints = byPort.get(key);
      if (!endpoints) {
        endpoints = new Map();
        byPort.set(key, endpoints);
      }
      for (const endpoint of Array.isArray(slice.endpoints) ? slice.endpoints : []) {
        const ip = endpoint.addresses?.[0];
        if (typeof ip !== 'string' || !IPV4.test(ip)) continue;
        const address = `${ip}:${port.port}`;
        if (endpoints.has(address)) continue;
        const conditions = endpoint.conditions ?? {};
        const ready = conditions.ready !== false;
        endpoints.set(address, {
          ip,
          port: port.port!,
          endpoint: address,
          ready,
          serving: conditions.serving !== false,
          terminating: conditions.terminating === true,
          isLocal: endpoint.nodeName === nodeName,
          chain: endpointChain(nameString, protocol, address),
          nodeHints: hintNames(endpoint.hints?.forNodes),
          zoneHints: hintNames(endpoint.hints?.forZones),
        });
      }
    }
  }
  const result = new Map<string, EndpointInfo[]>();
  for (const [key, endpoints] of byPort) {
    result.set(key, [...endpoints.values()].sort(compareEndpoints));
  }
  return result;
}

function compareEndpoints(a: EndpointInfo, b: EndpointInfo): number {
  const octets = (ip: string) => ip.split('.').map(Number);
  const [x, y] = [octets(a.ip), octets(b.ip)];
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return a.port - b.port;
}

export interface CategorizedEndpoints {
  /** Endpoints for Cluster policy: ready ones, else serving-and-terminating ones. */
  readonly cluster: readonly EndpointInfo[];
  /** This node's endpoints for Local policy, with the same fallback. */
  readonly local: readonly EndpointInfo[];
  /** Every endpoint some rule reaches: each gets a KUBE-SEP chain. */
  readonly reachable: readonly EndpointInfo[];
  /** Whether the service has usable endpoints anywhere. */
  readonly hasAny: boolean;
}

type TopologyMode = '' | 'PreferSameNode' | 'PreferSameZone';

/**
 * topologyModeFromHints: same-node when every ready endpoint has a node hint and some names this
 * node, else same-zone when every ready endpoint has a zone hint and some names this node's zone,
 * else none. The fallback happens here, for the whole service: never an empty choice.
 */
function topologyMode(endpoints: readonly EndpointInfo[], topology: ProxyTopology): TopologyMode {
  let hasReady = false;
  let allNodeHints = true;
  let forNode = false;
  let allZoneHints = true;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    hasReady = true;
    if (ep.nodeHints.size === 0) allNodeHints = false;
    else if (ep.nodeHints.has(topology.nodeName)) forNode = true;
    if (ep.zoneHints.size === 0) allZoneHints = false;
    else if (ep.zoneHints.has(topology.zone)) forZone = true;
  }
  if (!hasReady) return '';
  if (allNodeHints && forNode) return 'PreferSameNode';
  if (allZoneHints && forZone) return 'PreferSameZone';
  return '';
}

function availableForTopology(ep: EndpointInfo, mode: TopologyMode, topology: ProxyTopology): boolean {
  if (mode === 'PreferSameNode') return ep.nodeHints.has(topology.nodeName);
  if (mode === 'PreferSameZone') return ep.zoneHints.has(topology.zone);
  return true;
}

/** pkg/proxy/topology.go's CategorizeEndpoints. */
export function categorizeEndpoints(
  endpoints: readonly EndpointInfo[],
  usesCluster: boolean,
  usesLocal: boolean,
  topology: ProxyTopology,
): CategorizedEndpoints {
  let cluster: EndpointInfo[] = [];
  let mode: TopologyMode = '';
  let hasAny = false;
  if (usesCluster) {
    mode = topologyMode(endpoints, topology);
    cluster = endpoints.filter((ep) => ep.ready && availableForTopology(ep, mode, topology));
    if (cluster.length === 0) cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    hasAny = cluster.length > 0;
  }
  if (!usesLocal) return { cluster, local: [], reachable: cluster, hasAny };
  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAny = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAny = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let local: EndpointInfo[] = [];
  if (hasLocalReady) local = endpoints.filter((ep) => ep.isLocal && ep.ready);
  else if (hasLocalServingTerminating) {
    local = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  }
  if (!usesCluster) return { cluster, local, reachable: local, hasAny };
  // Without topology, ready local endpoints are among the cluster ones; else merge the two lists.
  if (mode === '' && (hasLocalReady || !hasLocalServingTerminating)) {
    return { cluster, local, reachable: cluster, hasAny };
  }
  const merged = new Map<string, EndpointInfo>();
  for (const ep of [...cluster, ...local]) merged.set(ep.endpoint, ep);
  return { cluster, local, reachable: [...merged.values()], hasAny };
}
