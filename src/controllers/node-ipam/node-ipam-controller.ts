// Node IPAM (the range allocator): every Node gets a pod CIDR of `--node-cidr-mask-size` bits
// from `--cluster-cidr`, written to spec.podCIDR and spec.podCIDRs. CIDRs nodes already hold are
// marked used first, so restarts never hand one out twice; a deleted Node's CIDR is released.
import type { Node } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf } from '../../client/controller.js';
import { NODES } from '../../client/resources.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { CidrSet } from './cidr-set.js';

const SERVICE_ACCOUNT = 'node-controller';

export class NodeIpamController {
  readonly controller: Controller;
  private readonly cidrs: CidrSet;
  /** CIDRs by node name, as this controller has seen or assigned them. */
  private readonly assigned = new Map<string, string>();

  constructor(private readonly context: ControllerContext) {
    const { clusterCidr, nodeCidrMaskSize } = context.settings;
    this.cidrs = new CidrSet(clusterCidr, nodeCidrMaskSize);
    const nodes = context.informers.informerFor<Node>(NODES);
    this.controller = new Controller({ name: 'node-ipam', sync: (key) => this.sync(key) });
    nodes.addEventHandler({
      onAdd: (node) => this.observe(node),
      onUpdate: (_old, node) => this.observe(node),
      onDelete: (deleted) => {
        const name = objectOf(deleted).metadata?.name ?? '';
        const cidr = this.assigned.get(name);
        if (cidr) this.cidrs.release(cidr);
        this.assigned.delete(name);
      },
    });
    this.controller.watch(nodes);
  }

  /** Records a node's CIDR as used (before any allocation: the handler runs ahead of sync). */
  private observe(node: Node): void {
    const name = node.metadata?.name;
    const cidr = node.spec?.podCIDR;
    if (!name || !cidr || this.assigned.get(name) === cidr) return;
    if (this.cidrs.occupy(cidr)) this.assigned.set(name, cidr);
  }

  async sync(name: string): Promise<void> {
    const node = this.context.informers.listerFor<Node>(NODES).get('', name);
    if (!node || node.spec?.podCIDR || node.metadata?.deletionTimestamp) return;
    const cidr = this.assigned.get(name) ?? this.cidrs.allocate();
    if (!cidr) {
      this.context
        .recorderFor(SERVICE_ACCOUNT, 'cidrAllocator')
        .event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
      throw new Error(`no remaining CIDRs in ${this.context.settings.clusterCidr} for node ${name}`);
    }
    this.assigned.set(name, cidr);
    try {
      await this.context
        .clientFor(SERVICE_ACCOUNT)
        .resource<Node>(NODES)
        .patch('', name, 'strategic', { spec: { podCIDR: cidr, podCIDRs: [cidr] } });
    } catch (error) {
      this.assigned.delete(name);
      this.cidrs.release(cidr);
      throw error;
    }
  }
}

export const nodeIpamController: ControllerDescriptor = {
  name: 'node-ipam-controller',
  create: (context) => new NodeIpamController(context).controller,
};
