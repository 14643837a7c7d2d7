// `tkube start`: brings a stopped (or crashed) cluster back as it was: the control plane on its
// port with its store, the same node containers with their addresses, volumes and agents (the
// nodes' entrypoints restart the agents, whose kubelets restart the pods as after a reboot).
// Everything is checked before anything starts; a failure stops again what this run started.
// k3d's `cluster start`; kind has none.
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureClusterCertificates } from '../pki/cluster-pki.js';
import type { NodeInfo, NodeProvider } from '../providers/types.js';
import {
  type ControlPlaneCommand,
  isControlPlaneProcess,
  type StartedControlPlane,
  startControlPlane,
  stopControlPlane,
} from './controlplane-process.js';
import { controlPlaneSettingsOf } from './controlplane-settings.js';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { waitForNodesReady } from './nodes/wait-ready.js';
import { assertPortAvailable } from './ports.js';
import { defaultProgressMode, failedStepOf, type ProgressMode, runSteps } from './progress.js';
import { waitForReadyz } from './readiness.js';
import {
  type ClusterRecord,
  clusterPaths,
  type Environment,
  loadClusterRecord,
  readControlPlanePid,
  recordedNodeNames,
  removeControlPlanePid,
  writeControlPlanePid,
} from './state.js';
import { nodeProvider } from './stop.js';
import {
  adminClient,
  DEFAULT_NODES_READY_TIMEOUT_MS,
  DEFAULT_READY_TIMEOUT_MS,
  describeEarlyExit,
  eachControlPlaneReadyStep,
  withLogTail,
} from './up.js';

const PORT_RELEASE_MS = 3_000;

export interface StartOptions {
  env?: Environment;
  progress?: ProgressMode;
  readyTimeoutMs?: number;
  nodesReadyTimeoutMs?: number;
  /** The program that runs the control plane; tkube's own by default. */
  controlPlaneCommand?: ControlPlaneCommand;
}

export interface StartResult {
  name: string;
  nodes: string[];
}

export async function start(name: string, options: StartOptions = {}): Promise<StartResult> {
  assertValidClusterName(name);
  const env = options.env ?? process.env;
  const paths = clusterPaths(name, env);
  const record = await loadClusterRecord(paths);
  const pid = await readControlPlanePid(paths);
  const controlPlaneRunning = pid !== undefined && isControlPlaneProcess(pid, paths);
  const provider = record.nodes > 0 || record.network ? await nodeProvider() : undefined;
  const nodes = provider ? await provider.listNodes(name) : [];
  if (provider) assertNodesPresent(record, nodes);
  if (controlPlaneRunning) {
    // After a dockerd restart the control plane lives on while the nodes are down: start those.
    if (provider && nodes.some((node) => node.state !== 'running')) {
      await runSteps(
        [startNodesStep(provider, nodes, [])],
        options.progress ?? defaultProgressMode(process.stderr, env),
      );
      return { name, nodes: nodes.map((node) => node.name) };
    }
    throw new ClusterError(
      `cluster ${JSON.stringify(name)} is already running`,
      `stop it first with "tkube stop ${name}"`,
    );
  }
  await portFreedSoon(record.apiPort).catch((error: unknown) => {
    if (!(error instanceof ClusterError)) throw error;
    throw new ClusterError(
      `cannot start cluster ${JSON.stringify(name)}: ${error.problem}`,
      'its kubeconfig entry names that port: stop what holds it, then try again',
    );
  });

  const undo: (() => Promise<unknown>)[] = [];
  let controlPlane: StartedControlPlane | undefined;
  const pki = await ensureClusterCertificates(paths.pkiDir, {
    ...(record.network && { apiServerSans: { ipAddresses: [record.network.gateway] } }),
  });
  try {
    await runSteps(
      [
        {
          title: `Starting the control plane on port ${record.apiPort}`,
          run: async () => {
            const started = startControlPlane(
              paths,
              record.apiPort,
              options.controlPlaneCommand,
              controlPlaneSettingsOf(record),
            );
            controlPlane = started;
            undo.push(async () => {
              if (started.pid > 0) await stopControlPlane(started.pid, paths);
              await removeControlPlanePid(paths);
            });
            if (started.pid > 0) await writeControlPlanePid(paths, started.pid);
          },
        },
        ...(provider && nodes.length > 0 ? [startNodesStep(provider, nodes, undo)] : []),
        {
          title: 'Waiting for the API server to be ready',
          run: () =>
            waitForReadyz({
              apiPort: record.apiPort,
              caCertificatePem: pki.ca.certificatePem,
              timeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
              givenUp: controlPlane!.exited.then(describeEarlyExit),
            }).catch(async (error: unknown) => {
              throw await withLogTail(errorMessage(error), paths);
            }),
        },
        ...(record.controlPlanePorts
          ? [
              eachControlPlaneReadyStep(
                record.controlPlanePorts,
                () => pki.ca.certificatePem,
                options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
                () => controlPlane!,
                paths,
              ),
            ]
          : []),
        ...(nodes.length > 0
          ? [
              {
                title: `Waiting for ${nodes.length} node${nodes.length === 1 ? '' : 's'} to be Ready`,
                run: async () => {
                  const client = adminClient(record.server, pki);
                  try {
                    await waitForNodesReady(
                      client,
                      nodes.map((node) => node.name),
                      options.nodesReadyTimeoutMs ?? DEFAULT_NODES_READY_TIMEOUT_MS,
                    );
                  } finally {
                    await client.close();
                  }
                },
              },
            ]
          : []),
      ],
      options.progress ?? defaultProgressMode(process.stderr, env),
    );
  } catch (error) {
    for (const action of undo.reverse()) await action().catch(() => undefined);
    if (error instanceof ClusterError) throw error;
    const step = failedStepOf(error);
    throw new ClusterError(
      `failed to start cluster ${JSON.stringify(name)}: ${errorMessage(error)}${step ? ` (step: ${step})` : ''}`,
      'what this start started was stopped again',
    );
  }
  return { name, nodes: nodes.map((node) => node.name) };
}

/** Every node of the record still exists (whatever its state): a node removed by hand is not re-created. */
function assertNodesPresent(record: ClusterRecord, nodes: readonly NodeInfo[]): void {
  const expected = recordedNodeNames(record);
  const present = new Set(nodes.map((node) => node.name));
  const missing = expected.filter((node) => !present.has(node));
  if (missing.length === 0) return;
  throw new ClusterError(
    `cannot start cluster ${JSON.stringify(record.name)}: ${missing.length} of its ${expected.length} node containers ${missing.length === 1 ? 'is' : 'are'} gone (${missing.join(', ')})`,
    `they were removed outside tkube; delete the cluster with "tkube down ${record.name}" and create it again`,
  );
}

/**
 * The API port free, allowing a moment: the connections of a control plane killed just now can
 * hold it (FIN_WAIT) until their clients close them.
 */
async function portFreedSoon(port: number): Promise<void> {
  const deadline = Date.now() + PORT_RELEASE_MS;
  for (;;) {
    try {
      await assertPortAvailable(port);
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await sleep(100);
    }
  }
}

function startNodesStep(
  provider: NodeProvider,
  nodes: readonly NodeInfo[],
  undo: (() => Promise<unknown>)[],
) {
  return {
    title: `Starting ${nodes.length} node${nodes.length === 1 ? '' : 's'}`,
    run: async () => {
      const stopped = nodes.filter((node) => node.state !== 'running');
      undo.push(() => Promise.all(stopped.map((node) => provider.stopNode(node.name, 10))));
      await Promise.all(stopped.map((node) => provider.startNode(node.name)));
    },
  };
}
