// The node's share of the pod network, kept in step with the Node objects: the CNI config for its
// own pod CIDR (once node IPAM has assigned one), a route to every other node's pod CIDR, and the
// masquerade rule. One key, resynced whenever any Node changes: the whole state is small.
import type { Node } from '../../api/types/core-v1.generated.js';
import { Controller } from '../../client/controller.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { writeCniConfig } from './cni-config.js';
import type { RunCommand } from './host-commands.js';
import { ensurePodMasquerade } from './masquerade.js';
import { type PeerNode, reconcilePodRoutes } from './routes.js';

const KEY = 'pod-network';

export interface PodNetworkOptions {
  readonly nodeName: string;
  readonly clusterPodSubnet: string;
  readonly run: RunCommand;
  readonly cniConfigPath?: string;
  /** Called once this node's CNI config is in place (the node can then turn Ready). */
  readonly onConfigured?: (podCIDR: string) => void;
}

export class PodNetwork {
  readonly controller: Controller;
  private masqueradeDone = false;

  constructor(
    private readonly nodes: SharedInformer<Node>,
    private readonly options: PodNetworkOptions,
  ) {
    this.controller = new Controller({ name: 'pod-network', sync: () => this.sync() });
    this.controller.watch(nodes, () => KEY);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  async sync(): Promise<void> {
    const { nodeName, clusterPodSubnet, run } = this.options;
    if (!this.masqueradeDone) {
      await ensurePodMasquerade(run, clusterPodSubnet);
      this.masqueradeDone = true;
    }
    const all = this.nodes.lister.list();
    const own = all.find((node) => node.metadata?.name === nodeName);
    const podCIDR = own?.spec?.podCIDR;
    if (podCIDR) {
      await writeCniConfig(podCIDR, this.options.cniConfigPath);
      this.options.onConfigured?.(podCIDR);
    }
    const peers: PeerNode[] = [];
    for (const node of all) {
      const name = node.metadata?.name;
      const address = node.status?.addresses?.find((entry) => entry.type === 'InternalIP')?.address;
      if (name === nodeName || !name || !address || !node.spec?.podCIDR) continue;
      peers.push({ name, address, podCIDR: node.spec.podCIDR });
    }
    await reconcilePodRoutes(run, peers, clusterPodSubnet);
  }
}
