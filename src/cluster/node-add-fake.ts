// `tkube node add --fake N`: more simulated nodes. They live in the control plane process, which
// makes its count of them at start, so the control plane is restarted with the larger count
// (the API is away for a few seconds; the store and every object stay). If that restart fails,
// the old count is put back and the control plane started as it was.
import { ensureClusterCertificates } from '../pki/cluster-pki.js';
import { MAX_FAKE_NODES } from '../providers/fake/pod-network-size.js';
import { stopControlPlane } from './controlplane-process.js';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { waitForNodesReady } from './nodes/wait-ready.js';
import type { ProgressMode } from './progress.js';
import { start } from './start.js';
import {
  clusterPaths,
  type Environment,
  loadClusterRecord,
  readControlPlanePid,
  removeControlPlanePid,
  writeClusterRecord,
} from './state.js';
import { clusterStatus } from './status.js';
import { adminClient, DEFAULT_NODES_READY_TIMEOUT_MS } from './up.js';

export interface FakeNodeAddOptions {
  env?: Environment;
  progress?: ProgressMode;
}

/** Adds `count` simulated nodes; returns their names (`fake-node-<index>`). */
export async function addFakeNodes(
  cluster: string,
  count: number,
  options: FakeNodeAddOptions = {},
): Promise<string[]> {
  assertValidClusterName(cluster);
  const env = options.env ?? process.env;
  const paths = clusterPaths(cluster, env);
  const record = await loadClusterRecord(paths);
  const before = record.fakeNodes ?? 0;
  if (!Number.isSafeInteger(count) || count < 1 || before + count > MAX_FAKE_NODES) {
    throw new ClusterError(
      `--fake ${count}: the cluster has ${before} fake nodes and may have at most ${MAX_FAKE_NODES}`,
    );
  }
  const status = await clusterStatus(cluster, { env });
  if (status.state !== 'Running') {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} is not running (${status.state})`,
      `start it with "tkube start ${cluster}" first`,
    );
  }
  const restart = async (fakeNodes: number) => {
    await writeClusterRecord(paths, { ...record, fakeNodes });
    const pid = await readControlPlanePid(paths);
    if (pid !== undefined) await stopControlPlane(pid, paths);
    await removeControlPlanePid(paths);
    await start(cluster, { env, progress: options.progress ?? 'silent' });
  };
  try {
    await restart(before + count);
  } catch (error) {
    await restart(before).catch(() => undefined);
    throw new ClusterError(
      `failed to add ${count} fake nodes to cluster ${JSON.stringify(cluster)}: ${error instanceof ClusterError ? error.problem : errorMessage(error)}`,
      `the control plane was started again with its ${before} fake nodes`,
    );
  }
  const names = Array.from({ length: count }, (_, i) => `fake-node-${before + i}`);
  const pki = await ensureClusterCertificates(paths.pkiDir);
  const client = adminClient(record.server, pki);
  try {
    await waitForNodesReady(client, names, DEFAULT_NODES_READY_TIMEOUT_MS);
  } finally {
    await client.close();
  }
  return names;
}
