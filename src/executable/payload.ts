// What the single executable carries (no upstream counterpart): the package's files as Node.js
// single executable application assets, listed with their hash in one manifest asset. Shared
// by the build (scripts/build/executable.ts), the executable's entry point and the CLI.

/** The asset holding the PayloadManifest. */
export const PAYLOAD_MANIFEST_ASSET = 'tkube-payload.json';

/**
 * The name (argv[0]) under which the executable is the Node.js runtime: the node image installs
 * it as `node`, and the CLI starts the control plane with it.
 */
export const RUNTIME_ARGV0 = 'node';

export interface PayloadFile {
  /** Relative to the package root, `/`-separated. */
  path: string;
  mode: number;
}

export interface PayloadManifest {
  /** sha256 of every file's path, mode and content: the name of the directory it is written to. */
  hash: string;
  files: PayloadFile[];
}

export function payloadAssetKey(path: string): string {
  return `file:${path}`;
}
