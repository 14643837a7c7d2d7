// hostPath volumes: the `type` check the kubelet runs before a container may mount the path,
// creating it for the `...OrCreate` types.
import type { Stats } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';

async function statOf(path: string): Promise<Stats | undefined> {
  return stat(path).catch(() => undefined);
}

async function makeFile(path: string): Promise<void> {
  const handle = await open(path, 'a', 0o644);
  await handle.close();
}

/** Checks (and for DirectoryOrCreate/FileOrCreate creates) `path`; throws the kubelet's message. */
export async function checkHostPathType(path: string, type: string | undefined): Promise<void> {
  if (type === undefined || type === '') return;
  const fail = (what: string) => new Error(`hostPath type check failed: ${path} is not a ${what}`);
  const info = await statOf(path);
  switch (type) {
    case 'DirectoryOrCreate':
      if (!info) {
        await mkdir(path, { recursive: true, mode: 0o755 });
        return;
      }
      if (!info.isDirectory()) throw fail('directory');
      return;
    case 'Directory':
      if (!info?.isDirectory()) throw fail('directory');
      return;
    case 'FileOrCreate':
      if (!info) {
        await makeFile(path);
        return;
      }
      if (info.isDirectory()) throw fail('file');
      return;
    case 'File':
      // Anything that exists and is not a directory counts as a file, as in the kubelet.
      if (!info || info.isDirectory()) throw fail('file');
      return;
    case 'Socket':
      if (!info?.isSocket()) throw fail('socket file');
      return;
    case 'CharDevice':
      if (!info?.isCharacterDevice()) throw fail('character device');
      return;
    case 'BlockDevice':
      if (!info?.isBlockDevice()) throw fail('block device');
      return;
    default:
      throw new Error(`${type} is an invalid volume type`);
  }
}
