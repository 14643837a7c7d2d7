import { Args, Command, Flags } from '@oclif/core';
import { chooseCluster } from '../../cluster/current-cluster.js';
import { errorMessage } from '../../cluster/errors.js';
import { addNode } from '../../cluster/node-add.js';
import { addFakeNodes } from '../../cluster/node-add-fake.js';
import type { PlannedNode } from '../../cluster/nodes/node-plan.js';
import { parseDuration } from '../up.js';

export default class NodeAdd extends Command {
  static override description = 'Add a Docker node to a running cluster (Ready when this returns)';

  static override examples = [
    '<%= config.bin %> node add',
    '<%= config.bin %> node add dev --name dev-extra',
    '<%= config.bin %> node add dev --role control-plane',
    '<%= config.bin %> node add ci --fake 10',
  ];

  static override args = {
    cluster: Args.string({
      description: "cluster name (default: the current kubeconfig context's tkube cluster, else tkube)",
    }),
  };

  static override flags = {
    name: Flags.string({ description: 'the node name (default <cluster>-node-<next index>)' }),
    role: Flags.string({
      description: 'the node role',
      options: ['worker', 'control-plane'],
      default: 'worker',
    }),
    fake: Flags.integer({
      description: 'add this many simulated nodes instead (restarts the control plane for a few seconds)',
      min: 1,
      exclusive: ['name', 'role'],
    }),
    wait: Flags.string({
      description: 'how long to wait for the node to be Ready, e.g. 90s',
      default: '120s',
    }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(NodeAdd);
    let cluster: string;
    try {
      const chosen = await chooseCluster(args.cluster, undefined);
      if (chosen.note && !flags.quiet) this.logToStderr(chosen.note);
      cluster = chosen.name;
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (flags.fake !== undefined) {
      try {
        const names = await addFakeNodes(cluster, flags.fake, {
          ...(flags.quiet && { progress: 'silent' as const }),
        });
        if (!flags.quiet) this.logToStderr(`Added fake nodes ${names.map((name) => `"${name}"`).join(', ')}`);
      } catch (error) {
        this.logToStderr(`Error: ${errorMessage(error)}`);
        this.exit(1);
      }
      return;
    }
    let node: PlannedNode;
    try {
      node = await addNode(cluster, {
        ...(flags.name !== undefined && { name: flags.name }),
        role: flags.role === 'control-plane' ? 'control-plane' : 'worker',
        nodesReadyTimeoutMs: parseDuration(flags.wait),
        ...(flags.quiet && { progress: 'silent' as const }),
      });
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (!flags.quiet) this.logToStderr(`Added node "${node.name}" (${node.ip}, pod CIDR ${node.podCIDR})`);
  }
}
