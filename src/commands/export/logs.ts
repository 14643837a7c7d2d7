import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../../cluster/errors.js';
import { exportLogs } from '../../cluster/export-logs.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../../cluster/name.js';

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
    name: Flags.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ExportLogs);
    try {
      const result = await exportLogs(clusterName(undefined, flags.name), args.dir);
      if (flags.output === 'json') this.log(JSON.stringify(result, null, 2));
      else this.log(`Exported logs of cluster "${flags.name}" to: ${result.dir}`);
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
  }
}
