// Which cluster a command means when none is named: the one of the current kubeconfig context
// when that context is a tkube cluster's (`tkube-<name>` with a state directory), as kubectl
// users expect; else the default name. The command says which it chose and why.
import { readFile } from 'node:fs/promises';
import { errorCode } from './errors.js';
import { kubeconfigContexts } from './kubeconfig-document.js';
import { kubeconfigPaths } from './kubeconfig-paths.js';
import { clusterName, DEFAULT_CLUSTER_NAME, kubeconfigContextName } from './name.js';
import { clusterDirectoryExists, clusterPaths, type Environment } from './state.js';

const CONTEXT_PREFIX = kubeconfigContextName('');

export interface ChosenCluster {
  name: string;
  /** Why this cluster, when the user named none (one line for stderr). */
  note?: string;
}

/** The current context, as kubectl takes it: from the first file that sets one. */
export async function currentKubeconfigContext(env: Environment = process.env): Promise<string> {
  for (const path of kubeconfigPaths(undefined, env)) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') continue;
      throw error;
    }
    const { currentContext } = kubeconfigContexts(text, path);
    if (currentContext !== '') return currentContext;
  }
  return '';
}

/** The cluster named by NAME or --name; else the current context's tkube cluster; else the default. */
export async function chooseCluster(
  positional: string | undefined,
  flag: string | undefined,
  env: Environment = process.env,
): Promise<ChosenCluster> {
  if (positional !== undefined || flag !== undefined) return { name: clusterName(positional, flag) };
  const context = await currentKubeconfigContext(env).catch(() => '');
  if (context.startsWith(CONTEXT_PREFIX)) {
    const name = context.slice(CONTEXT_PREFIX.length);
    if (name !== '' && (await clusterDirectoryExists(clusterPaths(name, env)).catch(() => false))) {
      return { name, note: `Using cluster "${name}" (the current kubeconfig context ${context})` };
    }
  }
  const why =
    context === ''
      ? 'no current kubeconfig context'
      : `the current context ${context} is not a tkube cluster`;
  return { name: DEFAULT_CLUSTER_NAME, note: `Using cluster "${DEFAULT_CLUSTER_NAME}" (${why})` };
}
