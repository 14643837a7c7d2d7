import { createRequire } from 'node:module';

interface PackageJson {
  version: string;
}

// dist/api and src/api are both two levels below the package root.
const packageJson = createRequire(import.meta.url)('../../package.json') as PackageJson;

/** tkube's own version, from package.json. */
export const TKUBE_VERSION: string = packageJson.version;
