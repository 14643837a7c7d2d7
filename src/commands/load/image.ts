import { Args, Command, Flags } from '@oclif/core';
import { chooseCluster } from '../../cluster/current-cluster.js';
import { errorMessage } from '../../cluster/errors.js';
import { loadImages } from '../../cluster/load-image.js';

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
    name: Flags.string({
      description: "cluster name (default: the current kubeconfig context's tkube cluster, else tkube)",
    }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(LoadImage);
    try {
      const chosen = await chooseCluster(undefined, flags.name);
      if (chosen.note && flags.output !== 'json') this.logToStderr(chosen.note);
      const result = await loadImages(chosen.name, argv as string[], {
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
