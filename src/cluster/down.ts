// `tkube down`: stops the control plane and removes every trace of the cluster. Idempotent: a
// cluster that is already (partly) gone is finished off without complaint.
import { type StopResult, stopControlPlane } from './controlplane-process.js';
import { ClusterError } from './errors.js';
import { deleteKubeconfigEntry } from './kubeconfig.js';
import { kubeconfigPaths } from './kubeconfig-paths.js';
import { assertValidClusterName, kubeconfigContextName } from './name.js';
import { dockerProvider } from './nodes/node-provider.js';
import { defaultProgressMode, type ProgressMode, runSteps } from './progress.js';
import {
  type ClusterRecord,
  clusterDirectoryExists,
  clusterPaths,
  type Environment,
  listClusterNames,
  readClusterRecord,
  readControlPlanePid,
  removeClusterDirectory,
} from './state.js';

export interface DownOptions {
  /** Also remove the entries from this kubeconfig file. */
  kubeconfigPath?: string;
  env?: Environment;
  progress?: ProgressMode;
  /** How long the control plane gets to exit after SIGTERM before SIGKILL. */
  gracePeriodMs?: number;
}

export interface DownResult {
  name: string;
  /** Whether the cluster's state directory existed. */
  existed: boolean;
  controlPlane: StopResult;
  /** Kubeconfig files the cluster's entries were removed from. */
  kubeconfigFiles: string[];
}

/** Deletes cluster `name`; throws only for an invalid name or a kubeconfig it could not clean. */
export async function down(name: string, options: DownOptions = {}): Promise<DownResult> {
  assertValidClusterName(name);
  const env = options.env ?? process.env;
  const paths = clusterPaths(name, env);
  const existed = await clusterDirectoryExists(paths);
  let record: ClusterRecord | undefined;
  try {
    record = await readClusterRecord(paths);
  } catch (error) {
    // A damaged record must not stop its removal.
    if (!(error instanceof ClusterError)) throw error;
  }
  const files = [
    ...new Set([...(record ? [record.kubeconfigPath] : []), ...kubeconfigPaths(options.kubeconfigPath, env)]),
  ];
  const result: DownResult = { name, existed, controlPlane: 'not-running', kubeconfigFiles: [] };
  const kubeconfigErrors: ClusterError[] = [];

  await runSteps(
    [
      {
        title: `Stopping the control plane of cluster ${name}`,
        run: async () => {
          const pid = await readControlPlanePid(paths);
          if (pid !== undefined)
            result.controlPlane = await stopControlPlane(pid, paths, {
              gracePeriodMs: options.gracePeriodMs,
            });
        },
      },
      {
        title: `Removing the kubeconfig context ${kubeconfigContextName(name)}`,
        run: async () => {
          for (const file of files) {
            try {
              if (await deleteKubeconfigEntry(file, kubeconfigContextName(name)))
                result.kubeconfigFiles.push(file);
            } catch (error) {
              if (!(error instanceof ClusterError)) throw error;
              kubeconfigErrors.push(error);
            }
          }
        },
      },
      {
        title: `Removing the nodes of cluster ${name}`,
        run: async () => {
          // A cluster without nodes never needed Docker; any other (or a damaged record) may have some.
          if (existed && record !== undefined && record.nodes === 0 && !record.network) return;
          const provider = dockerProvider();
          const reachable = await provider.checkAvailable().then(
            () => true,
            () => false,
          );
          if (!reachable) {
            if (record?.nodes) throw new ClusterError('cannot remove the nodes: Docker is not reachable');
            return;
          }
          await provider.removeCluster(name);
        },
      },
      {
        title: `Removing the state directory ${paths.dir}`,
        run: () => removeClusterDirectory(paths),
      },
    ],
    // Cleaning up after a cluster that is already gone is not worth progress lines.
    options.progress ?? (existed ? defaultProgressMode(process.stderr, env) : 'silent'),
  );
  if (kubeconfigErrors.length > 0) {
    throw new ClusterError(
      `cluster ${JSON.stringify(name)} was deleted, but its kubeconfig entries were not removed: ${kubeconfigErrors
        .map((error) => error.problem)
        .join('; ')}`,
      `remove the context ${kubeconfigContextName(name)} by hand, or fix the file and run "tkube down ${name}" again`,
    );
  }
  return result;
}

/** Deletes every cluster under $TKUBE_HOME; one that fails does not stop the others. */
export async function downAll(options: DownOptions = {}): Promise<DownResult[]> {
  const results: DownResult[] = [];
  let firstError: unknown;
  for (const name of await listClusterNames(options.env ?? process.env)) {
    try {
      results.push(await down(name, options));
    } catch (error) {
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
  return results;
}
