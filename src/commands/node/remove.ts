import { Args, Command, Flags } from '@oclif/core';
import { chooseCluster } from '../../cluster/current-cluster.js';
import { errorMessage } from '../../cluster/errors.js';
import { removeNode } from '../../cluster/node-remove.js';

export default class NodeRemove extends Command {
  static override description = 'Drain a node, then remove it from its cluster (--force: without draining)';

  static override examples = [
    '<%= config.bin %> node remove tkube-node-1',
    '<%= config.bin %> node remove dev-node-2 --cluster dev --force',
  ];

  static override args = {
    node: Args.string({ description: 'node name', required: true }),
  };

  static override flags = {
    cluster: Flags.string({
      description: "cluster name (default: the current kubeconfig context's tkube cluster, else tkube)",
    }),
    force: Flags.boolean({ description: 'remove without draining', default: false }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(NodeRemove);
    try {
      const chosen = await chooseCluster(flags.cluster, undefined);
      if (chosen.note && !flags.quiet) this.logToStderr(chosen.note);
      await removeNode(chosen.name, args.node, {
        force: flags.force,
        ...(flags.quiet && { progress: 'silent' as const }),
      });
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (!flags.quiet) this.logToStderr(`Removed node "${args.node}"`);
  }
}
