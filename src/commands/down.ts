import { Args, Command, Flags } from '@oclif/core';
import { type DownResult, down, downAll } from '../cluster/down.js';
import { errorMessage } from '../cluster/errors.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';

export default class Down extends Command {
  static override description =
    'Delete a cluster: stop its control plane, remove its state and its kubeconfig entries (no error if it does not exist)';

  static override examples = [
    '<%= config.bin %> down',
    '<%= config.bin %> down dev',
    '<%= config.bin %> down --all',
  ];

  static override args = {
    name: Args.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    all: Flags.boolean({ description: 'delete every cluster', default: false }),
    kubeconfig: Flags.string({
      description: 'also remove the entries from this kubeconfig file',
    }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Down);
    if (flags.all && argv.length > 0) {
      this.logToStderr('Error: --all deletes every cluster; give no cluster name with it');
      this.exit(1);
    }
    let results: DownResult[];
    try {
      const options = {
        kubeconfigPath: flags.kubeconfig,
        ...(flags.quiet && { progress: 'silent' as const }),
      };
      results = flags.all
        ? await downAll(options)
        : [await down(clusterName(args.name, flags.name), options)];
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (flags.quiet) return;
    if (flags.all && results.length === 0) this.logToStderr('No clusters found.');
    for (const result of results) {
      if (result.existed) this.logToStderr(`Deleted cluster "${result.name}"`);
      else this.logToStderr(`Cluster "${result.name}" does not exist; nothing left to delete`);
    }
  }
}
