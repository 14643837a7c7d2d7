// What the NetworkPolicies in force mean for this node's pods (the semantics of
// k8s.io/api/networking/v1 as upstream's CNI plugins and kube-network-policies apply them): which
// local pods are isolated in each direction, and for each the peers and ports that are allowed.
// A pure function of the cluster's pods, namespaces and policies, so rule generation is testable.

import { formatIpv4Cidr, type Ipv4Cidr, ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import type { LabelSelector } from '../../api/selectors/label-selector.js';
import { labelSelectorFromObject } from '../../api/selectors/label-selector-object.js';
import type { Namespace, Pod } from '../../api/types/core-v1.generated.js';
import type {
  NetworkPolicy,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from '../../api/types/networking-v1.generated.js';

export type Direction = 'ingress' | 'egress';

/** A pod as the rules see it: only pods with an address on the pod network take part. */
export interface PolicyPod {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly ip: string;
  readonly nodeName: string;
  /** Named container ports, `name/PROTOCOL` → number. */
  readonly namedPorts: ReadonlyMap<string, number>;
}

/** Where the other end of a connection may be. */
export type PeerMatch =
  | { readonly kind: 'any' }
  | { readonly kind: 'cidr'; readonly cidr: string; readonly except: readonly string[] };

/** Which destination ports: all of a protocol, or one port or an inclusive range. */
export interface PortMatch {
  readonly protocol: string;
  readonly port?: number;
  readonly endPort?: number;
}

/** One allowed combination: traffic from (ingress) or to (egress) the peer on one of the ports. */
export interface AllowRule {
  readonly peer: PeerMatch;
  /** Empty: every port and protocol. */
  readonly ports: readonly PortMatch[];
}

/** A local pod isolated in one direction: traffic not matching some rule is dropped. */
export interface IsolatedPod {
  readonly pod: PolicyPod;
  readonly direction: Direction;
  readonly rules: readonly AllowRule[];
}

export interface PolicyState {
  readonly pods: readonly Pod[];
  readonly namespaces: readonly Namespace[];
  readonly policies: readonly NetworkPolicy[];
}

const ANY: PeerMatch = { kind: 'any' };

/** The pods that take part: scheduled, running or pending with an address, not on the host network. */
export function policyPods(pods: readonly Pod[]): PolicyPod[] {
  const out: PolicyPod[] = [];
  for (const pod of pods) {
    const ip = pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP;
    const phase = pod.status?.phase;
    if (!ip || parseIpv4(ip) === undefined || pod.spec?.hostNetwork || !pod.spec?.nodeName) continue;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const namedPorts = new Map<string, number>();
    for (const container of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
      for (const port of container.ports ?? []) {
        if (port.name) namedPorts.set(`${port.name}/${port.protocol ?? 'TCP'}`, port.containerPort);
      }
    }
    out.push({
      namespace: pod.metadata?.namespace ?? '',
      name: pod.metadata?.name ?? '',
      labels: pod.metadata?.labels ?? {},
      ip,
      nodeName: pod.spec.nodeName,
      namedPorts,
    });
  }
  return out;
}

/** The directions a policy isolates in; without policyTypes, as the API server defaults them. */
export function policyDirections(policy: NetworkPolicy): Direction[] {
  const types = policy.spec?.policyTypes;
  if (types && types.length > 0) {
    return types.map((type) => (type === 'Egress' ? 'egress' : 'ingress'));
  }
  return (policy.spec?.egress?.length ?? 0) > 0 ? ['ingress', 'egress'] : ['ingress'];
}

function selector(object: Parameters<typeof labelSelectorFromObject>[0]): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(object);
  } catch {
    // The API server validates selectors; one it let through that does not parse selects nothing.
    return undefined;
  }
}

interface Cluster {
  readonly pods: readonly PolicyPod[];
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

const host = (ip: string) => `${ip}/32`;

/** The pods a peer's selectors pick (the peer has a podSelector or a namespaceSelector). */
function selectedPeerPods(peer: NetworkPolicyPeer, policyNamespace: string, cluster: Cluster): PolicyPod[] {
  const pods = peer.podSelector ? selector(peer.podSelector) : undefined;
  const namespaces = peer.namespaceSelector ? selector(peer.namespaceSelector) : undefined;
  if ((peer.podSelector && !pods) || (peer.namespaceSelector && !namespaces)) return [];
  return cluster.pods.filter((pod) => {
    if (namespaces) {
      if (!namespaces.matches(cluster.namespaceLabels.get(pod.namespace) ?? {})) return false;
    } else if (pod.namespace !== policyNamespace) {
      return false;
    }
    return !pods || pods.matches(pod.labels);
  });
}

/** A CIDR in canonical form (the network address), or undefined when it does not parse. */
function canonicalCidr(text: string): string | undefined {
  const cidr = parseIpv4Cidr(text);
  return cidr ? formatIpv4Cidr(cidr) : undefined;
}

function cidrHolds(block: Ipv4Cidr, excepts: readonly Ipv4Cidr[], ip: string): boolean {
  const address = parseIpv4(ip);
  if (address === undefined || !ipv4CidrContains(block, address)) return false;
  return !excepts.some((except) => ipv4CidrContains(except, address));
}

interface ResolvedPeer {
  readonly match: PeerMatch;
  /** The pods behind the peer: needed to resolve named ports on egress. */
  readonly holds: (pod: PolicyPod) => boolean;
}

function resolvePeer(peer: NetworkPolicyPeer, policyNamespace: string, cluster: Cluster): ResolvedPeer[] {
  if (peer.ipBlock) {
    const block = parseIpv4Cidr(peer.ipBlock.cidr);
    const cidr = canonicalCidr(peer.ipBlock.cidr);
    if (!block || !cidr) return [];
    const exceptCidrs = (peer.ipBlock.except ?? [])
      .map((text) => canonicalCidr(text))
      .filter((text): text is string => text !== undefined);
    const excepts = exceptCidrs.map((text) => parseIpv4Cidr(text)!);
    return [
      {
        match: { kind: 'cidr', cidr, except: exceptCidrs },
        holds: (pod) => cidrHolds(block, excepts, pod.ip),
      },
    ];
  }
  return selectedPeerPods(peer, policyNamespace, cluster).map((pod) => ({
    match: { kind: 'cidr', cidr: host(pod.ip), except: [] },
    holds: (other) => other === pod,
  }));
}

function isNamed(port: NetworkPolicyPort): port is NetworkPolicyPort & { port: string } {
  return typeof port.port === 'string' && !/^\d+$/.test(port.port);
}

/** A numeric port entry as a match; named ones are resolved against a pod by the caller. */
function numericPort(port: NetworkPolicyPort): PortMatch {
  const protocol = port.protocol ?? 'TCP';
  if (port.port === undefined) return { protocol };
  const number = typeof port.port === 'number' ? port.port : Number(port.port);
  return port.endPort !== undefined && port.endPort > number
    ? { protocol, port: number, endPort: port.endPort }
    : { protocol, port: number };
}

function namedPort(port: NetworkPolicyPort & { port: string }, pod: PolicyPod): PortMatch | undefined {
  const protocol = port.protocol ?? 'TCP';
  const number = pod.namedPorts.get(`${port.port}/${protocol}`);
  return number === undefined ? undefined : { protocol, port: number };
}

/**
 * The allow rules of one policy rule for a local pod. Ingress named ports are the local pod's own;
 * egress named ports are each destination pod's, so they become one rule per such pod.
 */
function allowRules(
  peers: readonly NetworkPolicyPeer[] | undefined,
  ports: readonly NetworkPolicyPort[] | undefined,
  direction: Direction,
  local: PolicyPod,
  policyNamespace: string,
  cluster: Cluster,
): AllowRule[] {
  const resolved: ResolvedPeer[] =
    peers && peers.length > 0
      ? peers.flatMap((peer) => resolvePeer(peer, policyNamespace, cluster))
      : [{ match: ANY, holds: () => true }];
  if (!ports || ports.length === 0) return resolved.map((peer) => ({ peer: peer.match, ports: [] }));
  const numeric = ports.filter((port) => !isNamed(port)).map(numericPort);
  const named = ports.filter(isNamed);
  const out: AllowRule[] = [];
  if (direction === 'ingress') {
    const all = [
      ...numeric,
      ...named.map((port) => namedPort(port, local)).filter((port) => port !== undefined),
    ];
    // Ports all named and none on this pod: the rule allows nothing.
    if (all.length > 0) for (const peer of resolved) out.push({ peer: peer.match, ports: all });
    return out;
  }
  if (numeric.length > 0) for (const peer of resolved) out.push({ peer: peer.match, ports: numeric });
  if (named.length > 0) {
    for (const pod of cluster.pods) {
      if (!resolved.some((peer) => peer.holds(pod))) continue;
      const podPorts = named.map((port) => namedPort(port, pod)).filter((port) => port !== undefined);
      if (podPorts.length > 0)
        out.push({ peer: { kind: 'cidr', cidr: host(pod.ip), except: [] }, ports: podPorts });
    }
  }
  return out;
}

/** Every local pod some policy isolates, per direction, with what the policies allow (in policy order). */
export function isolatedPods(state: PolicyState, nodeName: string): IsolatedPod[] {
  const cluster: Cluster = {
    pods: policyPods(state.pods),
    namespaceLabels: new Map(
      state.namespaces.map((namespace) => [namespace.metadata?.name ?? '', namespace.metadata?.labels ?? {}]),
    ),
  };
  const local = cluster.pods.filter((pod) => pod.nodeName === nodeName);
  const policies = [...state.policies].sort((a, b) =>
    `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(
      `${b.metadata?.namespace}/${b.metadata?.name}`,
    ),
  );
  const out: IsolatedPod[] = [];
  for (const pod of local) {
    for (const direction of ['ingress', 'egress'] as const) {
      let isolated = false;
      const rules: AllowRule[] = [];
      for (const policy of policies) {
        const namespace = policy.metadata?.namespace ?? '';
        if (namespace !== pod.namespace || !policyDirections(policy).includes(direction)) continue;
        const podSelector = selector(policy.spec?.podSelector ?? {});
        if (!podSelector?.matches(pod.labels)) continue;
        isolated = true;
        if (direction === 'ingress') {
          for (const rule of policy.spec?.ingress ?? [])
            rules.push(...allowRules(rule.from, rule.ports, direction, pod, namespace, cluster));
        } else {
          for (const rule of policy.spec?.egress ?? [])
            rules.push(...allowRules(rule.to, rule.ports, direction, pod, namespace, cluster));
        }
      }
      if (isolated) out.push({ pod, direction, rules });
    }
  }
  return out;
}
