// `tkube status` and `tkube list`: what a cluster's record says, whether its control plane
// process lives and whether its apiserver answers /readyz.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node } from '../api/types/core-v1.generated.js';
import { NODES } from '../client/resources.js';
import { httpsClient } from '../client/transports.js';
import { CLUSTER_PKI_FILE_NAMES } from '../pki/cluster-pki-file-names.js';
import { isControlPlaneProcess } from './controlplane-process.js';
import { ClusterError } from './errors.js';
import { assertValidClusterName, kubeconfigContextName } from './name.js';
import { isNodeReady } from './nodes/wait-ready.js';
import { probeReadyz } from './readiness.js';
import {
  type ClusterPaths,
  clusterPaths,
  type Environment,
  listClusterNames,
  loadClusterRecord,
  readControlPlanePid,
} from './state.js';

/**
 * Running: serving; NotReady: the process lives but /readyz fails; Stopped: stopped by `tkube
 * stop` (no pid recorded); Down: a pid is recorded but its process is gone (killed, crashed, or
 * the host restarted).
 */
export type ClusterState = 'Running' | 'NotReady' | 'Stopped' | 'Down';

export interface ClusterStatus {
  name: string;
  state: ClusterState;
  controlPlane: { running: boolean; pid: number | null };
  apiServer: { url: string; ready: boolean; detail: string };
  apiPort: number;
  nodes: number;
  /** The Node objects and whether each is Ready (empty when the API server does not answer). */
  nodeStatus: { name: string; ready: boolean }[];
  context: string;
  kubeconfigPath: string;
  createdAt: string;
  version: string;
  kubernetesVersion: string;
  stateDir: string;
  logFile: string;
}

/** A `tkube list` row: a cluster's status, or why it could not be read. */
export type ClusterListEntry = { name: string; status: ClusterStatus } | { name: string; problem: string };

export async function clusterStatus(
  name: string,
  options: { env?: Environment } = {},
): Promise<ClusterStatus> {
  assertValidClusterName(name);
  const paths = clusterPaths(name, options.env ?? process.env);
  const record = await loadClusterRecord(paths);
  const pid = (await readControlPlanePid(paths)) ?? null;
  const running = pid !== null && isControlPlaneProcess(pid, paths);
  const apiServer = {
    url: record.server,
    ready: false,
    detail:
      pid === null
        ? 'the control plane is stopped'
        : `the control plane (pid ${pid}) is not running: it was killed or crashed; "tkube start ${name}" brings it back`,
  };
  let nodeStatus: ClusterStatus['nodeStatus'] = [];
  if (running) {
    const probe = await probeReadyz(record.apiPort, await readCaCertificate(paths));
    apiServer.ready = probe.ready;
    apiServer.detail = probe.detail;
    if (probe.ready) nodeStatus = await readNodeStatus(record.server, paths).catch(() => []);
  }
  return {
    name,
    state: running ? (apiServer.ready ? 'Running' : 'NotReady') : pid === null ? 'Stopped' : 'Down',
    controlPlane: { running, pid: running ? pid : null },
    apiServer,
    apiPort: record.apiPort,
    nodes: record.nodes,
    nodeStatus,
    context: kubeconfigContextName(name),
    kubeconfigPath: record.kubeconfigPath,
    createdAt: record.createdAt,
    version: record.version,
    kubernetesVersion: record.kubernetesVersion,
    stateDir: paths.dir,
    logFile: paths.controlPlaneLog,
  };
}

/** Every cluster under $TKUBE_HOME with its status, sorted by name. */
export async function listClusters(options: { env?: Environment } = {}): Promise<ClusterListEntry[]> {
  const names = await listClusterNames(options.env ?? process.env);
  return Promise.all(
    names.map(async (name): Promise<ClusterListEntry> => {
      try {
        return { name, status: await clusterStatus(name, options) };
      } catch (error) {
        if (error instanceof ClusterError) return { name, problem: error.problem };
        throw error;
      }
    }),
  );
}

/** Every Node and its Ready condition, read as the cluster admin. */
async function readNodeStatus(server: string, paths: ClusterPaths): Promise<ClusterStatus['nodeStatus']> {
  const read = (name: keyof typeof CLUSTER_PKI_FILE_NAMES) =>
    readFile(join(paths.pkiDir, CLUSTER_PKI_FILE_NAMES[name]), 'utf8');
  const [ca, cert, key] = await Promise.all([
    read('caCertificate'),
    read('adminCertificate'),
    read('adminKey'),
  ]);
  const client = httpsClient({ server, ca, cert, key, component: 'tkube' });
  try {
    const nodes = await client.resource<Node>(NODES).list('');
    return nodes.items.map((node) => ({ name: node.metadata?.name ?? '', ready: isNodeReady(node) }));
  } finally {
    await client.close();
  }
}

async function readCaCertificate(paths: ClusterPaths): Promise<string> {
  return readFile(join(paths.pkiDir, CLUSTER_PKI_FILE_NAMES.caCertificate), 'utf8');
}
