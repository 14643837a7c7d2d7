// The kubelet's atomic writer for configMap, secret, downwardAPI and projected volumes. The
// files live in a timestamped directory; `..data` is a symlink to it, and every top-level name the
// user sees is a symlink through `..data`. An update writes a new timestamped directory and
// renames a fresh `..data_tmp` link over `..data`, so a reader sees the old set or the new set,
// never a mix; that is also what lets updates reach running containers.
import { randomInt } from 'node:crypto';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';

export interface FileProjection {
  readonly data: Buffer;
  readonly mode: number;
  readonly fsUser?: number;
}

/** Relative path → content. */
export type Payload = ReadonlyMap<string, FileProjection>;

export const DATA_DIR_NAME = '..data';
const NEW_DATA_DIR_NAME = '..data_tmp';
const MAX_FILE_NAME_LENGTH = 255;
const MAX_PATH_LENGTH = 4096;

export interface AtomicWriteOptions {
  /** Applied to the new timestamped directory before it becomes visible (fsGroup ownership). */
  readonly setPerms?: (dir: string) => Promise<void>;
  readonly now?: () => Date;
}

/** The payload path rules of the atomic writer, with its error texts. */
export function validatePayloadPath(targetPath: string): void {
  if (targetPath === '') throw new Error(`invalid path: must not be empty: "${targetPath}"`);
  if (targetPath.startsWith('/')) throw new Error(`invalid path: must be relative path: ${targetPath}`);
  if (targetPath.length > MAX_PATH_LENGTH) {
    throw new Error(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  }
  const items = targetPath.split('/');
  for (const item of items) {
    if (item === '..') throw new Error(`invalid path: must not contain '..': ${targetPath}`);
    if (item.length > MAX_FILE_NAME_LENGTH) {
      throw new Error(
        `invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} characters`,
      );
    }
  }
  if (items[0]!.startsWith('..') && items[0]!.length > 2) {
    throw new Error(`invalid path: must not start with '..': ${targetPath}`);
  }
}

/** Go's filepath.Clean for relative paths. */
function cleanPath(path: string): string {
  const cleaned = posix.normalize(path);
  return cleaned.length > 1 && cleaned.endsWith('/') ? cleaned.slice(0, -1) : cleaned;
}

/**
 * Writes `payload` into `targetDir` atomically; returns whether anything changed. An unchanged
 * payload (same paths, same contents) leaves the directory alone.
 */
export async function writeAtomically(
  targetDir: string,
  payload: Payload,
  options: AtomicWriteOptions = {},
): Promise<boolean> {
  const clean = new Map<string, FileProjection>();
  for (const [path, file] of payload) {
    validatePayloadPath(path);
    clean.set(cleanPath(path), file);
  }
  await mkdir(targetDir, { recursive: true });
  const dataDirPath = join(targetDir, DATA_DIR_NAME);
  const oldTsDir = await readlink(dataDirPath).catch(() => '');
  const oldTsPath = oldTsDir === '' ? '' : join(targetDir, oldTsDir);

  let shouldWrite = true;
  let pathsToRemove = new Set<string>();
  if (oldTsDir !== '') {
    shouldWrite = await payloadDiffers(oldTsPath, clean);
    pathsToRemove = await stalePaths(oldTsPath, clean);
  }
  if (!shouldWrite && pathsToRemove.size === 0) return false;

  const tsDir = await makeTimestampedDir(targetDir, (options.now ?? (() => new Date()))());
  try {
    await writePayload(tsDir, clean);
    await options.setPerms?.(tsDir);
  } catch (error) {
    await rm(tsDir, { recursive: true, force: true });
    throw error;
  }
  const tmpLink = join(targetDir, NEW_DATA_DIR_NAME);
  await rm(tmpLink, { force: true });
  await symlink(tsDir.slice(targetDir.length + 1), tmpLink);
  await rename(tmpLink, dataDirPath);

  for (const top of topLevelNames(clean.keys())) {
    const visible = join(targetDir, top);
    const exists = await lstat(visible).then(
      () => true,
      () => false,
    );
    if (!exists) await symlink(join(DATA_DIR_NAME, top), visible);
  }
  for (const path of pathsToRemove) {
    if (!path.includes('/')) await rm(join(targetDir, path), { force: true });
  }
  if (oldTsPath !== '') await rm(oldTsPath, { recursive: true, force: true });
  return true;
}

function topLevelNames(paths: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const path of paths) names.add(path.split('/')[0]!);
  return names;
}

async function payloadDiffers(oldTsPath: string, payload: Map<string, FileProjection>): Promise<boolean> {
  for (const [path, file] of payload) {
    const current = await readFile(join(oldTsPath, path)).catch(() => undefined);
    if (current === undefined || !current.equals(file.data)) return true;
  }
  return false;
}

/** Paths under the old data directory that the new payload no longer has (files and directories). */
async function stalePaths(oldTsPath: string, payload: Map<string, FileProjection>): Promise<Set<string>> {
  const existing = new Set<string>();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      existing.add(relative);
      if (entry.isDirectory()) await walk(join(dir, entry.name), relative);
    }
  };
  await walk(oldTsPath, '');
  for (const path of payload.keys()) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) existing.delete(parts.slice(0, i).join('/'));
  }
  return existing;
}

/** `..2006_01_02_15_04_05.<random>`, as Go's os.MkdirTemp names it with the kubelet's pattern. */
async function makeTimestampedDir(targetDir: string, now: Date): Promise<string> {
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `..${now.getUTCFullYear()}_${two(now.getUTCMonth() + 1)}_${two(now.getUTCDate())}_${two(
    now.getUTCHours(),
  )}_${two(now.getUTCMinutes())}_${two(now.getUTCSeconds())}.`;
  for (;;) {
    const path = join(targetDir, `${stamp}${randomInt(2 ** 31)}`);
    try {
      await mkdir(path, { mode: 0o700 });
      await chmod(path, 0o755);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

async function writePayload(dir: string, payload: Map<string, FileProjection>): Promise<void> {
  for (const [path, file] of payload) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true, mode: 0o755 });
    await writeFile(full, file.data, { mode: file.mode });
    // writeFile's mode passes through the umask; the volume's mode must be exact.
    await chmod(full, file.mode);
    if (file.fsUser !== undefined) await chown(full, file.fsUser, -1);
  }
}
