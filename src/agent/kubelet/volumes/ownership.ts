// fsGroup ownership of a volume: every file and directory joins the group, files become group
// readable (and writable unless the volume is read-only), directories setgid and group
// searchable, so files created later inherit the group too.
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const READ_WRITE = 0o660;
const READ_ONLY = 0o440;
const SEARCH = 0o110;
const SETGID = 0o2000;

export async function setVolumeOwnership(dir: string, fsGroup: number, readOnly: boolean): Promise<void> {
  const info = await lstat(dir);
  await lchown(dir, -1, fsGroup);
  // A symlink's own mode means nothing, and chmod would change its target's.
  if (info.isSymbolicLink()) return;
  let mask = readOnly ? READ_ONLY : READ_WRITE;
  if (info.isDirectory()) mask |= SETGID | SEARCH;
  await chmod(dir, (info.mode & 0o7777) | mask);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(dir)) await setVolumeOwnership(join(dir, entry), fsGroup, readOnly);
}
