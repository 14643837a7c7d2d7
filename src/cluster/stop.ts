// `tkube stop`: stops a cluster's node containers, then its control plane (SIGTERM: the store is
// closed cleanly), keeping everything else, so `tkube start` brings the same cluster back.
// k3d's `cluster stop`; kind has none.
import { stopControlPlane } from './controlplane-process.js';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { defaultProgressMode, type ProgressMode, runSteps } from './progress.js';
import {
  clusterPaths,
  type Environment,
  loadClusterRecord,
  readControlPlanePid,
  removeControlPlanePid,
} from './state.js';
import { type ClusterState, clusterStatus } from './status.js';

export interface StopOptions {
  env?: Environment;
  progress?: ProgressMode;
  /** How long the control plane gets to exit after SIGTERM before SIGKILL. */
  gracePeriodMs?: number;
}

/** How long a node's entrypoint gets to stop its agent and containerd before Docker kills it. */
const NODE_STOP_TIMEOUT_SECONDS = 10;

export interface StopResult {
  name: string;
  /** The state the cluster was in. */
  was: ClusterState;
  nodesStopped: string[];
}

export async function stop(name: string, options: StopOptions = {}): Promise<StopResult> {
  assertValidClusterName(name);
  const env = options.env ?? process.env;
  const paths = clusterPaths(name, env);
  const record = await loadClusterRecord(paths);
  const status = await clusterStatus(name, { env });
  const provider = record.nodes > 0 || record.network ? await nodeProvider() : undefined;
  const running = provider ? (await provider.listNodes(name)).filter((node) => node.state !== 'exited') : [];
  if (status.state === 'Stopped' && running.length === 0) {
    throw new ClusterError(
      `cluster ${JSON.stringify(name)} is already stopped`,
      `start it with "tkube start ${name}"`,
    );
  }
  const result: StopResult = { name, was: status.state, nodesStopped: [] };
  await runSteps(
    [
      ...(provider && running.length > 0
        ? [
            {
              title: `Stopping ${running.length} node${running.length === 1 ? '' : 's'}`,
              run: async () => {
                await Promise.all(
                  running.map(async (node) => {
                    await provider.stopNode(node.name, NODE_STOP_TIMEOUT_SECONDS);
                    result.nodesStopped.push(node.name);
                  }),
                );
              },
            },
          ]
        : []),
      {
        title: `Stopping the control plane of cluster ${name}`,
        run: async () => {
          const pid = await readControlPlanePid(paths);
          if (pid !== undefined) await stopControlPlane(pid, paths, { gracePeriodMs: options.gracePeriodMs });
          // No pid file: stopped on purpose (a pid whose process is gone means it died).
          await removeControlPlanePid(paths);
        },
      },
    ],
    options.progress ?? defaultProgressMode(process.stderr, env),
  ).catch((error: unknown) => {
    if (error instanceof ClusterError) throw error;
    throw new ClusterError(`failed to stop cluster ${JSON.stringify(name)}: ${errorMessage(error)}`);
  });
  return result;
}

/** Docker, loaded only for clusters with nodes; unreachable is a one-line error. */
export async function nodeProvider() {
  const { dockerProvider } = await import('./nodes/node-provider.js');
  const provider = dockerProvider();
  await provider.checkAvailable().catch((error: unknown) => {
    throw new ClusterError(errorMessage(error));
  });
  return provider;
}
