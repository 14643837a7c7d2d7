import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../cluster/errors.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';
import { up, usageLines } from '../cluster/up.js';

export default class Up extends Command {
  static override description = 'Create a cluster and make it the current kubectl context';

  static override examples = [
    '<%= config.bin %> up --nodes 0',
    '<%= config.bin %> up dev --nodes 0 --api-port 6443',
    '<%= config.bin %> up ci --nodes 0 --kubeconfig ./kubeconfig',
  ];

  static override args = {
    name: Args.string({ description: 'cluster name (a DNS-1123 label)', default: DEFAULT_CLUSTER_NAME }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    nodes: Flags.integer({
      description: 'number of node containers (only 0, the control plane alone, is supported so far)',
      default: 0,
    }),
    'api-port': Flags.integer({
      description: "the API server's port on 127.0.0.1 (default: a free port)",
      min: 1,
      max: 65535,
    }),
    kubeconfig: Flags.string({
      description: 'kubeconfig file to write the context to (default: $KUBECONFIG or ~/.kube/config)',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Up);
    const controller = new AbortController();
    const interrupt = () => controller.abort();
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    try {
      const result = await up({
        name: clusterName(args.name, flags.name),
        nodes: flags.nodes,
        apiPort: flags['api-port'],
        kubeconfigPath: flags.kubeconfig,
        signal: controller.signal,
      });
      for (const line of usageLines(result, flags.kubeconfig !== undefined)) this.log(line);
    } catch (error) {
      // One line (oclif's this.error would wrap it), no stack trace.
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(controller.signal.aborted ? 130 : 1);
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }
  }
}
