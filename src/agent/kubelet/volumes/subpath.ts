// volumeMounts[].subPath and subPathExpr: the path inside the volume a container mounts, created
// when missing and refused when it leaves the volume. Failures are the container's
// (CreateContainerConfigError), with the kubelet's texts.
import { chmod, mkdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VolumeSetUpError } from './errors.js';
import { expandReferences } from './expansion.js';

/** Expands `$(VAR)` from the container's environment; a missing or empty variable is an error. */
export function expandSubPathExpr(
  expression: string,
  env: ReadonlyMap<string, string>,
  containerName: string,
) {
  const missing = new Set<string>();
  const expanded = expandReferences(expression, (name) => {
    const value = env.get(name);
    if (value === undefined || value === '') missing.add(name);
    return value ?? '';
  });
  if (missing.size > 0) {
    throw new VolumeSetUpError(
      'CreateContainerConfigError',
      `missing value for ${[...missing].sort().join(', ')}`,
      containerName,
    );
  }
  return expanded;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The host path of `subPath` inside the volume at `volumePath`, with symlinks resolved. */
export async function resolveSubPath(
  volumePath: string,
  subPath: string,
  mountName: string,
  containerName: string,
): Promise<string> {
  const fail = (message: string) =>
    new VolumeSetUpError('CreateContainerConfigError', message, containerName);
  if (subPath.startsWith('/')) throw fail(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split('/').includes('..')) {
    throw fail(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  }
  const target = join(volumePath, subPath);
  const realVolume = await realpath(volumePath);
  const inside = (path: string) => path === realVolume || path.startsWith(`${realVolume}/`);
  if (!(await exists(target))) {
    try {
      const mode = (await stat(volumePath)).mode & 0o7777;
      // Create one level at a time so a symlink leading out of the volume is never followed.
      let current = volumePath;
      for (const part of subPath.split('/').filter((p) => p !== '' && p !== '.')) {
        current = join(current, part);
        if (await exists(current)) {
          if (!inside(await realpath(current))) throw new Error('outside the volume');
          continue;
        }
        await mkdir(current, { mode });
        await chmod(current, mode);
      }
    } catch {
      throw fail(
        `failed to create subPath directory for volumeMount "${mountName}" of container "${containerName}"`,
      );
    }
  }
  const resolved = await realpath(target).catch(() => undefined);
  if (resolved === undefined || !inside(resolved)) {
    throw fail(`failed to prepare subPath for volumeMount "${mountName}" of container "${containerName}"`);
  }
  return resolved;
}
