import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../cluster/errors.js';
import { clusterKubeconfig, exportKubeconfig } from '../cluster/kubeconfig-export.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';

export default class Kubeconfig extends Command {
  static override description =
    "Print a cluster's kubeconfig, or with --merge write its context into your kubeconfig file again";

  static override examples = [
    '<%= config.bin %> kubeconfig dev > dev.kubeconfig',
    '<%= config.bin %> kubeconfig dev --merge',
    '<%= config.bin %> kubeconfig dev --merge --kubeconfig ./kubeconfig',
  ];

  static override args = {
    name: Args.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    merge: Flags.boolean({
      description: 'merge the context into the kubeconfig file and make it current instead of printing it',
      default: false,
    }),
    kubeconfig: Flags.string({
      description: 'kubeconfig file to merge into (default: $KUBECONFIG or ~/.kube/config)',
      dependsOn: ['merge'],
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Kubeconfig);
    try {
      if (!flags.merge) {
        process.stdout.write(await clusterKubeconfig(clusterName(args.name, flags.name)));
        return;
      }
      const { file, context } = await exportKubeconfig(clusterName(args.name, flags.name), {
        kubeconfigPath: flags.kubeconfig,
      });
      this.logToStderr(`Set kubectl context to "${context}" in ${file}`);
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
  }
}
