// Which kubeconfig file kubectl reads and writes (clientcmd's loading rules): an explicit
// --kubeconfig alone; else every file of $KUBECONFIG; else ~/.kube/config.
import { statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { type Environment, homeDirectory } from './state.js';

/** The kubeconfig files that are read, in order, as absolute paths without duplicates. */
export function kubeconfigPaths(explicitPath: string | undefined, env: Environment = process.env): string[] {
  if (explicitPath) return [resolve(explicitPath)];
  const listed = (env.KUBECONFIG ?? '')
    .split(delimiter)
    .filter((path) => path !== '')
    .map((path) => resolve(path));
  const unique = [...new Set(listed)];
  if (unique.length > 0) return unique;
  return [join(homeDirectory(env), '.kube', 'config')];
}

/**
 * The file a new entry goes into, as kubectl decides it: the first listed file that exists,
 * or the last one when none does.
 */
export function kubeconfigPathForMerge(
  explicitPath: string | undefined,
  env: Environment = process.env,
): string {
  const paths = kubeconfigPaths(explicitPath, env);
  return paths.find(isFile) ?? paths[paths.length - 1]!;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
