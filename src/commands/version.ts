import { Command, Flags } from '@oclif/core';
import { tkubeVersions, versionText } from '../api/tkube-version.js';

// bin/run.js answers `tkube version` and `tkube version -o json` itself, without loading oclif,
// with the same versionText; this command serves every other spelling (help, bad flags).

export default class Version extends Command {
  static override description = "Print tkube's version, the Kubernetes API version it serves, and Node.js's";

  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version -o json'];

  static override flags = {
    output: Flags.string({
      char: 'o',
      description: 'output format',
      options: ['json'],
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    process.stdout.write(versionText(tkubeVersions(), flags.output === 'json' ? 'json' : undefined));
  }
}
