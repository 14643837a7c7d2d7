// The mounts volumes need in the node (tmpfs for memory-backed emptyDirs, secrets and projected
// volumes), as one seam so tests can run without mount privileges.
import { readFile } from 'node:fs/promises';
import { type RunCommand, runCommand } from '../../network/host-commands.js';

export interface Mounter {
  /** Mounts a tmpfs at `dir`, limited to `sizeBytes` when given. */
  mountTmpfs(dir: string, sizeBytes?: bigint): Promise<void>;
  unmount(dir: string): Promise<void>;
  /** Mount points at or below `dir`, deepest first. */
  mountPointsUnder(dir: string): Promise<string[]>;
}

/** `/proc/self/mountinfo` escapes spaces and the like as octal (`\040`). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

export function mountPointsIn(mountinfo: string, dir: string): string[] {
  const points: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5) continue;
    const point = unescapeMountPath(fields[4]!);
    if (point === dir || point.startsWith(`${dir}/`)) points.push(point);
  }
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

export function systemMounter(run: RunCommand = runCommand): Mounter {
  return {
    async mountTmpfs(dir, sizeBytes) {
      const options = sizeBytes !== undefined && sizeBytes > 0n ? ['-o', `size=${sizeBytes}`] : [];
      await run('mount', ['-t', 'tmpfs', ...options, 'tmpfs', dir]);
    },
    async unmount(dir) {
      await run('umount', [dir]);
    },
    async mountPointsUnder(dir) {
      return mountPointsIn(await readFile('/proc/self/mountinfo', 'utf8'), dir);
    },
  };
}
