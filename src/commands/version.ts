import { Command, Flags } from '@oclif/core';
import { TKUBE_VERSION } from '../api/tkube-version.js';
import { KUBERNETES_GIT_VERSION } from '../api/version.js';

export interface VersionInfo {
  tkubeVersion: string;
  kubernetesVersion: string;
  nodeVersion: string;
}

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
    const info: VersionInfo = {
      tkubeVersion: TKUBE_VERSION,
      kubernetesVersion: KUBERNETES_GIT_VERSION,
      nodeVersion: process.version,
    };
    if (flags.output === 'json') {
      this.log(JSON.stringify(info, null, 2));
      return;
    }
    this.log(`tkube version: ${info.tkubeVersion}`);
    this.log(`Kubernetes API: ${info.kubernetesVersion}`);
    this.log(`Node.js: ${info.nodeVersion}`);
  }
}
