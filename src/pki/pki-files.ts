import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';

/** A PKI file tkube cannot use; the message names the file and what is wrong with it. */
export class PkiFileError extends Error {
  override readonly name = 'PkiFileError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/** Private keys are readable by their owner only. */
export const PRIVATE_FILE_MODE = 0o600;
export const PUBLIC_FILE_MODE = 0o644;
export const PKI_DIRECTORY_MODE = 0o700;

/** Creates the directory if needed and restricts it to its owner (mkdir's mode is subject to umask). */
export async function ensurePrivateDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PKI_DIRECTORY_MODE });
  await chmod(dir, PKI_DIRECTORY_MODE);
}

/** The file's text, or undefined when it does not exist. */
export async function readOptionalFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes through a temporary file and a rename, so a crash never leaves half a PEM behind. */
export async function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  mode: number,
): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data, { mode, flag: 'wx' });
    await chmod(temporary, mode);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
