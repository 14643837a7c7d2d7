// Where a cluster's nodes go: a /24 docker network per cluster with the host at .1 and node i
// at .(10+i), and the names, roles and labels each node registers with.
import { createHash } from 'node:crypto';
import { formatIpv4, formatIpv4Cidr, ipv4Subnet, parseIpv4Cidr } from '../../api/ipv4.js';
import type { NodeMount, NodeRole, PortMapping } from '../../providers/types.js';
import type { NodeConfig } from '../config/cluster-config.js';

/** Cluster networks are carved from 172.30.0.0/16 (one /24 each), away from Docker's defaults. */
const NETWORK_POOL = '172.30.0.0/16';
const FIRST_NODE_HOST = 10;
export const MAX_NODES = 200;
/** The pod network of every cluster: node IPAM hands each node a /24 of it. */
export const POD_SUBNET = '10.244.0.0/16';
/** Node IPAM's default `--node-cidr-mask-size`. */
const NODE_CIDR_BITS = 24;

export interface NetworkPlan {
  readonly subnet: string;
  readonly gateway: string;
}

export interface PlannedNode {
  readonly index: number;
  readonly name: string;
  readonly role: NodeRole;
  readonly ip: string;
  /** Labels `up` puts on the Node once registered (roles, the config's labels). */
  readonly labels: Record<string, string>;
  readonly portMappings: PortMapping[];
  readonly mounts: NodeMount[];
  /**
   * The node's /24 of the pod subnet, counted from the top: node IPAM hands out subnets from the
   * bottom (to simulated nodes, say), so the two never meet in practice, and IPAM keeps these.
   */
  readonly podCIDR: string;
}

/**
 * The `attempt`-th candidate /24 for a cluster: a hash of its name picks the first, so clusters
 * side by side usually get different subnets at once; a taken one moves on to the next.
 */
export function networkCandidate(cluster: string, attempt: number): NetworkPlan {
  const pool = parseIpv4Cidr(NETWORK_POOL)!;
  const first = createHash('sha256').update(cluster).digest().readUInt8(0);
  const third = (first + attempt) % 256;
  const base = pool.base + third * 256;
  return { subnet: formatIpv4Cidr({ base, prefixLength: 24 }), gateway: formatIpv4(base + 1) };
}

/** Node i is `<cluster>-node-<i>`; without a config the first is the control-plane node. */
export function planNodes(
  cluster: string,
  count: number,
  network: NetworkPlan,
  configured: readonly NodeConfig[] = [],
  podSubnet = POD_SUBNET,
): PlannedNode[] {
  const base = parseIpv4Cidr(network.subnet)!.base;
  const pods = parseIpv4Cidr(podSubnet)!;
  const subnets = 2 ** (NODE_CIDR_BITS - pods.prefixLength);
  return Array.from({ length: count }, (_, index): PlannedNode => {
    const config = configured[index];
    const role: NodeRole = config ? config.role : index === 0 ? 'control-plane' : 'worker';
    const roleLabels: Record<string, string> =
      role === 'control-plane' ? { 'node-role.kubernetes.io/control-plane': '' } : {};
    return {
      index,
      name: `${cluster}-node-${index}`,
      role,
      ip: formatIpv4(base + FIRST_NODE_HOST + index),
      labels: { ...roleLabels, ...config?.labels },
      portMappings: [...(config?.extraPortMappings ?? [])],
      mounts: [...(config?.extraMounts ?? [])],
      podCIDR: formatIpv4Cidr(ipv4Subnet(pods, NODE_CIDR_BITS, subnets - 1 - index)!),
    };
  });
}

/** How many nodes' /24s the pod subnet holds. */
export function podSubnetCapacity(podSubnet: string): number {
  const pods = parseIpv4Cidr(podSubnet);
  return pods ? 2 ** Math.max(0, NODE_CIDR_BITS - pods.prefixLength) : 0;
}
