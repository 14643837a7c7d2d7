// An image made of host binaries and the shared libraries ldd names for them, `docker import`ed:
// nothing is pulled. Tests use it to run a program the host has (node, openssl) in a pod.
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { type TarEntry, tarStream } from '../../../src/providers/docker/tar.js';
import { docker } from './support.js';

/** Imports `reference` holding each `[pathInImage, hostPath]` binary with its libraries, and /tmp. */
export async function importHostBinariesImage(
  reference: string,
  binaries: readonly (readonly [path: string, source: string])[],
): Promise<void> {
  const libraries = new Set<string>();
  for (const [, source] of binaries) {
    const { stdout } = await execa('ldd', [source], { reject: false });
    for (const match of stdout.matchAll(/(\/\S+) \(0x/g)) libraries.add(match[1]!);
  }
  const files = [...binaries, ...[...libraries].map((library) => [library.slice(1), library] as const)];
  const directories = new Set<string>(['tmp']);
  for (const [path] of files) {
    for (let dir = dirname(path); dir !== '.'; dir = dirname(dir)) directories.add(dir);
  }
  const entries: TarEntry[] = [
    ...[...directories].sort().map((path) => ({
      type: 'directory' as const,
      path,
      mode: path === 'tmp' ? 0o1777 : 0o755,
    })),
    ...files.map(([path, source]) => {
      const real = realpathSync(source);
      return { type: 'hostFile' as const, path, mode: 0o755, source: real, size: statSync(real).size };
    }),
  ];
  const [repo, tag] = reference.split(':') as [string, string];
  const response = await docker.importImage(tarStream(entries), { repo, tag });
  await readEngineMessages(response, `importing ${reference}`);
}
