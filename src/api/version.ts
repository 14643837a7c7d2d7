import { createRequire } from 'node:module';

/** The Kubernetes minor whose API tkube serves, reported by `/version` and `tkube version`. */
export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '33';
export const KUBERNETES_GIT_VERSION = `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0`;

interface PackageJson {
  version: string;
}

// dist/api and src/api are both two levels below the package root.
const packageJson = createRequire(import.meta.url)('../../package.json') as PackageJson;

/** tkube's own version, from package.json. */
export const TKUBE_VERSION: string = packageJson.version;
