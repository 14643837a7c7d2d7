// Host-gateway routing: a route to every other node's pod CIDR via that node's address. Routes
// live in the node's network namespace and vanish when it restarts, so the agent reconciles them
// from the Node objects at every start and on every Node change.
import { ipv4CidrContains, parseIpv4Cidr } from '../../api/ipv4.js';
import type { RunCommand } from './host-commands.js';

export interface PeerNode {
  readonly name: string;
  readonly address: string;
  readonly podCIDR: string;
}

interface RouteRow {
  readonly dst?: string;
  readonly gateway?: string;
}

/** Makes the routes to peers' pod CIDRs exactly `peers`: adds, replaces, and removes stale ones. */
export async function reconcilePodRoutes(
  run: RunCommand,
  peers: readonly PeerNode[],
  clusterPodSubnet: string,
): Promise<{ added: string[]; removed: string[] }> {
  const rows = JSON.parse((await run('ip', ['-j', 'route', 'show'])) || '[]') as RouteRow[];
  const existing = new Map(
    rows.filter((row) => row.dst && row.gateway).map((row) => [row.dst!, row.gateway!]),
  );
  const added: string[] = [];
  const removed: string[] = [];
  for (const peer of peers) {
    if (existing.get(peer.podCIDR) === peer.address) continue;
    await run('ip', ['route', 'replace', peer.podCIDR, 'via', peer.address]);
    added.push(peer.podCIDR);
  }
  const wanted = new Set(peers.map((peer) => peer.podCIDR));
  const podNetwork = parseIpv4Cidr(clusterPodSubnet);
  if (!podNetwork) throw new Error(`invalid pod subnet ${JSON.stringify(clusterPodSubnet)}`);
  for (const [dst] of existing) {
    const route = parseIpv4Cidr(dst);
    // Only routes into the pod network are ours to remove (the bridge's own route has no gateway).
    if (wanted.has(dst) || !route || !ipv4CidrContains(podNetwork, route)) continue;
    await run('ip', ['route', 'del', dst]);
    removed.push(dst);
  }
  return { added, removed };
}
