// `tkube node add`: one more Docker node on a running cluster (k3d's `node create`): the next
// address and pod CIDR of the cluster's plan, the cluster's node image, its own certificates and
// agent; registered and Ready before it returns. A failure removes the half-made node.
import { ensureClusterCertificates } from '../pki/cluster-pki.js';
import type { NodeRole } from '../providers/types.js';
import { ClusterError, errorMessage } from './errors.js';
import { apiServerUrlAt } from './kubeconfig.js';
import { assertValidClusterName, isDns1123Label } from './name.js';
import { removeAgentDirectories } from './nodes/agent-directories.js';
import { type PlannedNode, POD_SUBNET, planNodes } from './nodes/node-plan.js';
import { labelNodes, waitForNodesReady } from './nodes/wait-ready.js';
import { defaultProgressMode, failedStepOf, type ProgressMode, runSteps } from './progress.js';
import { configureNodesForRegistry } from './registry/local-registry.js';
import {
  clusterPaths,
  type Environment,
  loadClusterRecord,
  recordedNodeNames,
  writeClusterRecord,
} from './state.js';
import { clusterStatus } from './status.js';
import { nodeProvider } from './stop.js';
import { adminClient, DEFAULT_NODES_READY_TIMEOUT_MS } from './up.js';

export interface NodeAddOptions {
  /** The node's name; `<cluster>-node-<index>` by default. */
  name?: string;
  role?: NodeRole;
  env?: Environment;
  progress?: ProgressMode;
  nodesReadyTimeoutMs?: number;
}

export async function addNode(cluster: string, options: NodeAddOptions = {}): Promise<PlannedNode> {
  assertValidClusterName(cluster);
  const env = options.env ?? process.env;
  const paths = clusterPaths(cluster, env);
  const record = await loadClusterRecord(paths);
  const network = record.network;
  if (!network) {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} has no node network (it was created with --nodes 0)`,
      'create a cluster with at least one node to add Docker nodes to it',
    );
  }
  const status = await clusterStatus(cluster, { env });
  if (status.state !== 'Running') {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} is not running (${status.state})`,
      `start it with "tkube start ${cluster}" first`,
    );
  }
  if (options.name !== undefined) {
    const problems = isDns1123Label(options.name);
    if (problems.length > 0)
      throw new ClusterError(`invalid node name ${JSON.stringify(options.name)}: ${problems.join('; ')}`);
  }
  const provider = await nodeProvider();
  const existing = await provider.listNodes(cluster);
  const name = options.name ?? `${cluster}-node-${Math.max(-1, ...existing.map((node) => node.index)) + 1}`;
  if (existing.some((node) => node.name === name) || status.nodeStatus.some((node) => node.name === name)) {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} already has a node named ${JSON.stringify(name)}`,
    );
  }
  const index = Math.max(-1, ...existing.map((node) => node.index)) + 1;
  const image = existing[0]?.image;
  if (image === undefined) {
    throw new ClusterError(
      `cluster ${JSON.stringify(cluster)} has no node container to take the node image from`,
    );
  }
  const role = options.role ?? 'worker';
  const plan = planNodes(cluster, index + 1, network, [], record.podSubnet ?? POD_SUBNET)[index]!;
  const node: PlannedNode = {
    ...plan,
    name,
    role,
    labels: role === 'control-plane' ? { 'node-role.kubernetes.io/control-plane': '' } : {},
  };
  const pki = await ensureClusterCertificates(paths.pkiDir, {
    apiServerSans: { ipAddresses: [network.gateway] },
  });
  const docker = await import('./nodes/node-steps.js');
  try {
    await runSteps(
      [
        {
          title: `Starting node ${name} (${node.ip})`,
          run: () =>
            docker.startNodeContainers(provider, { cluster, clusterDir: paths.dir, image, nodes: [node] }),
        },
        {
          title: `Installing the agent in ${name}`,
          run: () =>
            docker.installAgents({
              clusterDir: paths.dir,
              nodes: [node],
              server: apiServerUrlAt(network.gateway, record.apiPort),
              podSubnet: record.podSubnet ?? POD_SUBNET,
              ca: pki.ca,
            }),
        },
        ...(record.registry
          ? [
              {
                title: `Pointing ${name} at the local registry`,
                run: () => configureNodesForRegistry(provider, [name], record.registry!),
              },
            ]
          : []),
        {
          title: `Waiting for ${name} to be Ready`,
          run: async () => {
            const client = adminClient(record.server, pki);
            try {
              await waitForNodesReady(
                client,
                [name],
                options.nodesReadyTimeoutMs ?? DEFAULT_NODES_READY_TIMEOUT_MS,
              );
              await labelNodes(client, new Map([[name, node.labels]]));
            } finally {
              await client.close();
            }
          },
        },
      ],
      options.progress ?? defaultProgressMode(process.stderr, env),
    );
  } catch (error) {
    await provider.removeNode(name).catch(() => undefined);
    await removeAgentDirectories(paths.dir, name).catch(() => undefined);
    if (error instanceof ClusterError) throw error;
    const step = failedStepOf(error);
    throw new ClusterError(
      `failed to add node ${JSON.stringify(name)} to cluster ${JSON.stringify(cluster)}: ${errorMessage(error)}${step ? ` (step: ${step})` : ''}`,
      'its container was removed',
    );
  }
  const names = [...recordedNodeNames(record), name];
  await writeClusterRecord(paths, { ...record, nodes: names.length, nodeNames: names });
  return node;
}
