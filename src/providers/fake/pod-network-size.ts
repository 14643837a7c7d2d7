// How finely node IPAM cuts the pod network. Every node gets a /24 of 10.244.0.0/16, which runs
// out at 256 nodes; a cluster with more (fake) nodes gets smaller per-node CIDRs instead, as an
// operator would pass a larger --node-cidr-mask-size. The pod network itself stays the same, so
// real nodes in the same cluster keep their routes.
import { parseIpv4Cidr } from '../../api/ipv4.js';
import { type ClusterSettings, DEFAULT_CLUSTER_SETTINGS } from '../../controllers/context.js';

type PodNetwork = Pick<ClusterSettings, 'clusterCidr' | 'nodeCidrMaskSize'>;

/** The smallest per-node CIDR handed out: 13 pod addresses. */
const SMALLEST_NODE_CIDR = 28;

/** How many nodes the pod network can give a CIDR at most. */
export function maxNodesOf(settings: PodNetwork = DEFAULT_CLUSTER_SETTINGS): number {
  const cluster = parseIpv4Cidr(settings.clusterCidr);
  if (!cluster) throw new Error(`invalid cluster CIDR ${JSON.stringify(settings.clusterCidr)}`);
  return 2 ** Math.max(0, SMALLEST_NODE_CIDR - cluster.prefixLength);
}

/** The most fake nodes a cluster can have with the default pod network. */
export const MAX_FAKE_NODES = maxNodesOf();

/** `settings` with the node CIDR mask narrowed just enough for `nodes` nodes to get one each. */
export function clusterSettingsForNodes<S extends PodNetwork>(nodes: number, settings: S): S {
  const cluster = parseIpv4Cidr(settings.clusterCidr);
  if (!cluster) throw new Error(`invalid cluster CIDR ${JSON.stringify(settings.clusterCidr)}`);
  let mask = settings.nodeCidrMaskSize;
  while (2 ** (mask - cluster.prefixLength) < nodes && mask < SMALLEST_NODE_CIDR) mask++;
  return mask === settings.nodeCidrMaskSize ? settings : { ...settings, nodeCidrMaskSize: mask };
}
