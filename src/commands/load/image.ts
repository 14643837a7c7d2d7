import { Args, Command, Flags } from '@oclif/core';
import { errorMessage } from '../../cluster/errors.js';
import { loadImages } from '../../cluster/load-image.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../../cluster/name.js';

export default class LoadImage extends Command {
  static override description =
    "Copy images from the host's Docker into every node (nodes that hold the same image id are skipped)";

  static override examples = [
    '<%= config.bin %> load image my-app:dev',
    '<%= config.bin %> load image a:1 b:2 --name ci',
  ];

  static override strict = false;

  static override args = {
    image: Args.string({ description: 'image reference(s) known to the host Docker', required: true }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name', default: DEFAULT_CLUSTER_NAME }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(LoadImage);
    try {
      const result = await loadImages(clusterName(undefined, flags.name), argv as string[], {
        onNode: ({ node, imported, skipped }) => {
          if (flags.output === 'json') return;
          for (const image of imported) this.logToStderr(`Image "${image}" loaded into node "${node}"`);
          for (const image of skipped) this.logToStderr(`Image "${image}" already present on node "${node}"`);
        },
      });
      if (flags.output === 'json') this.log(JSON.stringify(result, null, 2));
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
  }
}
