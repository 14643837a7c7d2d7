// The kubeconfig lock client-go's clientcmd uses (loader.go lockFile): an empty `<file>.lock`
// created with O_CREAT|O_EXCL and mode 0 next to the file, removed when the write is done.
// kubectl and kind honour the same file, so holding it keeps their writes and ours apart.
// Like kind, tkube retries for a moment before giving up, to ride out a concurrent writer.
import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError, errorCode } from './errors.js';

export interface FileLockOptions {
  /** How many times to try creating the lock file. */
  attempts?: number;
  /** Pause between attempts. */
  retryDelayMs?: number;
}

const DEFAULT_ATTEMPTS = 20;
const DEFAULT_RETRY_DELAY_MS = 100;

export function lockFileName(file: string): string {
  return `${file}.lock`;
}

/** Runs `action` while holding `<file>.lock`; the lock is removed afterwards even if it fails. */
export async function withFileLock<T>(
  file: string,
  action: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  await acquireFileLock(file, options);
  try {
    return await action();
  } finally {
    await unlink(lockFileName(file)).catch(() => undefined);
  }
}

async function acquireFileLock(file: string, options: FileLockOptions): Promise<void> {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  try {
    // client-go creates the directory first, so a lock can be taken for a file not yet written.
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    // mkdir -p reports a file standing where a directory should be as EEXIST.
    const cause = errorCode(error) === 'EEXIST' ? Object.assign(new Error(), { code: 'ENOTDIR' }) : error;
    throw unwritableKubeconfigError(file, cause);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const handle = await open(lockFileName(file), 'wx', 0o000);
      await handle.close();
      return;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw unwritableKubeconfigError(file, error);
      if (attempt >= attempts) {
        throw new ClusterError(
          `cannot lock kubeconfig ${file}: ${lockFileName(file)} exists`,
          'another kubectl or tkube may be writing it; if none is, remove the lock file',
        );
      }
    }
    await sleep(retryDelayMs);
  }
}

/** The one-line error for a kubeconfig file tkube cannot create or change. */
export function unwritableKubeconfigError(file: string, error: unknown): ClusterError {
  return new ClusterError(
    `cannot write kubeconfig ${file}: ${describeFileError(error)}`,
    'pass --kubeconfig PATH to write it elsewhere',
  );
}

function describeFileError(error: unknown): string {
  switch (errorCode(error)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOTDIR':
      return 'a parent path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOSPC':
      return 'no space left on device';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
