import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../cluster/errors.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';
import { type StopResult, stop } from '../cluster/stop.js';

export default class Stop extends Command {
  static override description =
    "Stop a cluster's nodes and control plane, keeping its state; `tkube start` brings it back";

  static override examples = ['<%= config.bin %> stop', '<%= config.bin %> stop dev'];

  static override args = {
    name: Args.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Stop);
    let result: StopResult;
    try {
      result = await stop(clusterName(args.name, flags.name), {
        ...(flags.quiet && { progress: 'silent' as const }),
      });
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (!flags.quiet) this.logToStderr(`Stopped cluster "${result.name}"`);
  }
}
