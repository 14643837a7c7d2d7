// `tkube node remove`: drains a Docker node (unless forced), deletes its Node object and removes
// its container and volume (k3d's `node delete`).

import { NODES } from '../client/resources.js';
import { isNotFound } from '../client/rest/index.js';
import { ensureClusterCertificates } from '../pki/cluster-pki.js';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { removeAgentDirectories } from './nodes/agent-directories.js';
import { drainNode } from './nodes/drain.js';
import { defaultProgressMode, type ProgressMode, runSteps, type Step } from './progress.js';
import {
  clusterPaths,
  type Environment,
  loadClusterRecord,
  recordedNodeNames,
  writeClusterRecord,
} from './state.js';
import { clusterStatus } from './status.js';
import { nodeProvider } from './stop.js';
import { adminClient } from './up.js';

export interface NodeRemoveOptions {
  /** Remove without draining, even when the control plane is not running. */
  force?: boolean;
  env?: Environment;
  progress?: ProgressMode;
  drainTimeoutMs?: number;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 120_000;

export async function removeNode(
  cluster: string,
  node: string,
  options: NodeRemoveOptions = {},
): Promise<void> {
  assertValidClusterName(cluster);
  const env = options.env ?? process.env;
  const paths = clusterPaths(cluster, env);
  const record = await loadClusterRecord(paths);
  const provider = await nodeProvider();
  const containers = await provider.listNodes(cluster);
  if (!containers.some((container) => container.name === node)) {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} has no node ${JSON.stringify(node)}`,
      `its nodes: ${containers.map((container) => container.name).join(', ') || 'none'}`,
    );
  }
  const running = (await clusterStatus(cluster, { env })).state === 'Running';
  if (!running && !options.force) {
    throw new ClusterError(
      `cannot drain node ${node}: cluster ${JSON.stringify(cluster)} is not running`,
      `start it first, or remove the node without draining with --force`,
    );
  }
  const pki = await ensureClusterCertificates(paths.pkiDir);
  const client = running ? adminClient(record.server, pki) : undefined;
  const steps: Step[] = [];
  if (client && !options.force) {
    steps.push({
      title: `Draining node ${node}`,
      run: () => drainNode(client, node, options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS),
    });
  }
  steps.push({
    title: `Removing node ${node}`,
    run: async () => {
      await provider.removeNode(node);
      await removeAgentDirectories(paths.dir, node);
    },
  });
  if (client) {
    steps.push({
      title: `Deleting the Node object ${node}`,
      run: async () => {
        await client
          .resource(NODES)
          .delete('', node)
          .catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
      },
    });
  }
  try {
    await runSteps(steps, options.progress ?? defaultProgressMode(process.stderr, env));
  } catch (error) {
    if (error instanceof ClusterError) throw error;
    throw new ClusterError(`failed to remove node ${JSON.stringify(node)}: ${errorMessage(error)}`);
  } finally {
    await client?.close();
  }
  const names = recordedNodeNames(record).filter((name) => name !== node);
  await writeClusterRecord(paths, { ...record, nodes: names.length, nodeNames: names });
}
