import { Args, Command, Flags } from '@oclif/core';
import { chooseCluster } from '../../cluster/current-cluster.js';
import { errorMessage } from '../../cluster/errors.js';
import { exportLogs } from '../../cluster/export-logs.js';

export default class ExportLogs extends Command {
  static override description =
    "Write a cluster's control-plane, agent and containerd logs and node details to a directory";

  static override examples = [
    '<%= config.bin %> export logs',
    '<%= config.bin %> export logs ./artifacts --name ci',
  ];

  static override args = {
    dir: Args.string({ description: 'where to write (default: ./tkube-logs-<cluster>-<time>)' }),
  };

  static override flags = {
    name: Flags.string({
      description: "cluster name (default: the current kubeconfig context's tkube cluster, else tkube)",
    }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ExportLogs);
    try {
      const chosen = await chooseCluster(undefined, flags.name);
      if (chosen.note && flags.output !== 'json') this.logToStderr(chosen.note);
      const result = await exportLogs(chosen.name, args.dir);
      if (flags.output === 'json') this.log(JSON.stringify(result, null, 2));
      else this.log(`Exported logs of cluster "${chosen.name}" to: ${result.dir}`);
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
  }
}
