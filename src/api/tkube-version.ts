import { createRequire } from 'node:module';
import { KUBERNETES_GIT_VERSION } from './version.js';

interface PackageJson {
  version: string;
}

// dist/api and src/api are both two levels below the package root.
const packageJson = createRequire(import.meta.url)('../../package.json') as PackageJson;

/** tkube's own version, from package.json. */
export const TKUBE_VERSION: string = packageJson.version;

export interface TkubeVersions {
  tkubeVersion: string;
  kubernetesVersion: string;
  nodeVersion: string;
}

export function tkubeVersions(): TkubeVersions {
  return {
    tkubeVersion: TKUBE_VERSION,
    kubernetesVersion: KUBERNETES_GIT_VERSION,
    nodeVersion: process.version,
  };
}

/** What `tkube version` prints: three lines, or `-o json`'s document. */
export function versionText(info: TkubeVersions, output?: 'json'): string {
  if (output === 'json') return `${JSON.stringify(info, null, 2)}\n`;
  return `tkube version: ${info.tkubeVersion}\nKubernetes API: ${info.kubernetesVersion}\nNode.js: ${info.nodeVersion}\n`;
}
