import { Command, Flags } from '@oclif/core';
import { errorMessage } from '../../cluster/errors.js';
import { ensureNodeImage, type NodeImage } from '../../providers/docker/image/node-image.js';

export default class ImageBuild extends Command {
  static override description =
    'Build the node image (containerd, runc, CNI plugins, Node.js) unless an image with the same inputs exists';

  static override examples = [
    '<%= config.bin %> image build',
    '<%= config.bin %> image build --builder offline --force',
    '<%= config.bin %> image build --builder dockerfile --base-image debian:bookworm-slim -o json',
  ];

  static override flags = {
    builder: Flags.string({
      description:
        'offline: from host programs, no registry needed; dockerfile: on a local Debian/Node.js base image ' +
        '(default: dockerfile when such an image is present, else offline)',
      options: ['offline', 'dockerfile'],
    }),
    'base-image': Flags.string({
      description: "the dockerfile builder's base image (must be present locally)",
    }),
    force: Flags.boolean({ description: 'build even when the image exists', default: false }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
    quiet: Flags.boolean({ char: 'q', description: 'print no progress', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ImageBuild);
    const quiet = flags.quiet || flags.output === 'json';
    let image: NodeImage;
    try {
      image = await ensureNodeImage({
        builder: flags.builder as 'offline' | 'dockerfile' | undefined,
        baseImage: flags['base-image'],
        force: flags.force,
        onProgress: quiet ? undefined : (message) => this.logToStderr(`• ${message}`),
      });
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (flags.output === 'json') {
      this.log(JSON.stringify(image, null, 2));
      return;
    }
    const seconds = (image.durationMs / 1000).toFixed(1);
    const size = `${Math.round(image.sizeBytes / 1_000_000)} MB`;
    this.log(
      image.cached
        ? `${image.tag} is up to date (${image.builder} builder, ${size}; checked in ${seconds}s)`
        : `${image.tag} built in ${seconds}s (${image.builder} builder, ${size})`,
    );
  }
}
