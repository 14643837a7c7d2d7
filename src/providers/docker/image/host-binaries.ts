// Finding programs on the host and the shared libraries they load.
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';

const SYSTEM_DIRECTORIES = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The first executable called `name` on PATH or in the system directories. */
export async function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const directories = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...SYSTEM_DIRECTORIES];
  for (const directory of directories) {
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface LddResult {
  /** Absolute paths of the libraries and of the dynamic loader. */
  libraries: string[];
  /** Library names ldd could not find. */
  missing: string[];
}

/**
 * Parses `ldd FILE...` output. Static programs print "statically linked" or "not a dynamic
 * executable" and contribute nothing; the vDSO has no file.
 */
export function parseLddOutput(output: string): LddResult {
  const libraries = new Set<string>();
  const missing = new Set<string>();
  for (const line of output.split('\n')) {
    const arrow = /^\s+(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?\s*$/.exec(line);
    if (arrow) {
      const [, name, where] = arrow;
      if (where === 'not found') missing.add(name!);
      else if (where!.startsWith('/')) libraries.add(where!);
      continue;
    }
    const direct = /^\s+(\/\S+) \(0x[0-9a-f]+\)\s*$/.exec(line);
    if (direct) libraries.add(direct[1]!);
  }
  return { libraries: [...libraries].sort(), missing: [...missing].sort() };
}

/** The shared libraries all `files` need, with one ldd run. */
export async function sharedLibraries(files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const result = await execa('ldd', files, { reject: false, env: { LC_ALL: 'C' } });
  if (result.failed && result.stdout === '') {
    throw new Error(`ldd failed: ${result.stderr || result.shortMessage}`);
  }
  const parsed = parseLddOutput(result.stdout);
  if (parsed.missing.length > 0) {
    throw new Error(`shared libraries not found on the host: ${parsed.missing.join(', ')}`);
  }
  return parsed.libraries;
}
