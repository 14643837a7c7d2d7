import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../cluster/errors.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';
import { type StartResult, start } from '../cluster/start.js';
import { parseDuration } from './up.js';

export default class Start extends Command {
  static override description =
    'Start a stopped cluster again: the same nodes, addresses and objects; its pods restart as after a reboot';

  static override examples = ['<%= config.bin %> start', '<%= config.bin %> start dev'];

  static override args = {
    name: Args.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    wait: Flags.string({
      description: 'how long to wait for the nodes to be Ready, e.g. 90s or 3m',
      default: '120s',
    }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Start);
    let result: StartResult;
    try {
      result = await start(clusterName(args.name, flags.name), {
        nodesReadyTimeoutMs: parseDuration(flags.wait),
        ...(flags.quiet && { progress: 'silent' as const }),
      });
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (!flags.quiet) this.logToStderr(`Started cluster "${result.name}"`);
  }
}
