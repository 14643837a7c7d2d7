import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// `tkube up`: checks, then a pipeline of named steps; any failure undoes what was done, so a
// failed `up` leaves no process, state directory or kubeconfig entry behind.

import { TKUBE_VERSION } from '../api/tkube-version.js';
import { KUBERNETES_GIT_VERSION } from '../api/version.js';
import { SERVICE_ACCOUNTS } from '../client/resources.js';
import { isNotFound } from '../client/rest/index.js';
import { httpsClient } from '../client/transports.js';
import type { Client } from '../client/types.js';
import { waitForDefaultServiceAccounts } from '../controlplane/default-service-accounts.js';
import { type ClusterCertificates, ensureClusterCertificates } from '../pki/cluster-pki.js';
import { fakeNodeName } from '../providers/fake/fake-nodes.js';
import { MAX_FAKE_NODES } from '../providers/fake/pod-network-size.js';
import type { ClusterNetwork } from '../providers/types.js';
import { parseDatastoreEndpoint } from '../storage/datastore-endpoint-url.js';
import type { ClusterConfig } from './config/cluster-config.js';
import {
  type ControlPlaneCommand,
  isControlPlaneProcess,
  lastLogLines,
  type StartedControlPlane,
  startControlPlane,
  stopControlPlane,
} from './controlplane-process.js';
import { controlPlaneSettingsOf } from './controlplane-settings.js';
import { ClusterError, errorMessage } from './errors.js';
import {
  apiServerUrl,
  apiServerUrlAt,
  assertKubeconfigWritable,
  deleteKubeconfigEntry,
  kubeconfigEntry,
  writeKubeconfigEntry,
} from './kubeconfig.js';
import { kubeconfigPathForMerge } from './kubeconfig-paths.js';
import { assertValidClusterName, kubeconfigContextName } from './name.js';
import { MAX_NODES, type PlannedNode, POD_SUBNET, planNodes, podSubnetCapacity } from './nodes/node-plan.js';
import { labelNodes, waitForNodesReady } from './nodes/wait-ready.js';
import { assertPortAvailable, findFreePort } from './ports.js';
import { defaultProgressMode, failedStepOf, type ProgressMode, runSteps, type Step } from './progress.js';
import { waitForEachControlPlane, waitForReadyz } from './readiness.js';
import {
  assertRegistryPortAvailable,
  configureNodesForRegistry,
  DEFAULT_REGISTRY_PORT,
  ownedRegistryName,
  publishRegistryHosting,
} from './registry/local-registry.js';
import {
  type ClusterPaths,
  type ClusterRecord,
  claimClusterDirectory,
  clusterDirectoryExists,
  clusterExistsError,
  clusterPaths,
  type Environment,
  readControlPlanePid,
  removeClusterDirectory,
  stoppedClusterError,
  writeClusterRecord,
  writeControlPlanePid,
} from './state.js';

export interface UpOptions {
  name: string;
  /** Node containers in Docker; 0 for a control plane only. Default 0. */
  nodes?: number;
  /** Simulated nodes in the control plane process (no containers). Default 0. */
  fakeNodes?: number;
  /** A parsed config file (`--config`): nodes, their labels, ports and mounts, networking. */
  config?: ClusterConfig;
  /**
   * A local registry for the nodes (`--registry`): owned by the cluster unless `name` is given,
   * which makes it shared (reused if it exists, kept by `tkube down`). Port default 5001.
   */
  registry?: { name?: string; port?: number };
  /** The node image to use instead of building (or reusing) tkube's own. */
  image?: string;
  /** How long to wait for the nodes to be Ready. */
  nodesReadyTimeoutMs?: number;
  /** Keep what was created when `up` fails (for debugging). */
  retain?: boolean;
  /** The apiserver's port on 127.0.0.1; a free one when left out. */
  apiPort?: number;
  /** Write the kubeconfig entry to this file instead of $KUBECONFIG's or ~/.kube/config. */
  kubeconfigPath?: string;
  env?: Environment;
  progress?: ProgressMode;
  /** How long the apiserver may take to answer /readyz. */
  readyTimeoutMs?: number;
  /** Stops `up` (and undoes it) when aborted, e.g. on Ctrl-C. */
  signal?: AbortSignal;
  /** The program that runs the control plane; tkube's own hidden command by default. */
  controlPlaneCommand?: ControlPlaneCommand;
  /** `--datastore-endpoint`: sqlite://PATH or postgres://...; default SQLite in the state directory. */
  datastoreEndpoint?: string;
  /** `--control-planes N`: control-plane processes on the (shared) datastore. Default 1. */
  controlPlanes?: number;
}

export interface UpResult {
  record: ClusterRecord;
  /** The kubeconfig context (and cluster and user) name. */
  context: string;
  kubeconfigPath: string;
}

export const DEFAULT_READY_TIMEOUT_MS = 60_000;
export const DEFAULT_NODES_READY_TIMEOUT_MS = 120_000;
/** tkube's own client of the new cluster, as its admin. */
export function adminClient(server: string, pki: ClusterCertificates): Client {
  return httpsClient({
    server,
    ca: pki.ca.certificatePem,
    cert: pki.admin.certificatePem,
    key: pki.admin.privateKeyPem,
    component: 'tkube',
  });
}

/**
 * Waits until the system namespaces have their `default` ServiceAccount, without which pods are
 * refused there: /readyz does not cover them, as in Kubernetes.
 */
async function waitForPodAdmission(
  server: string,
  pki: ClusterCertificates,
  wait: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const client = adminClient(server, pki);
  try {
    const accounts = client.resource(SERVICE_ACCOUNTS);
    const missing = await waitForDefaultServiceAccounts({
      exists: (namespace) =>
        accounts.get(namespace, 'default').then(
          () => true,
          (error: unknown) => {
            if (isNotFound(error)) return false;
            throw error;
          },
        ),
      ...wait,
    });
    if (missing) {
      throw new Error(
        `namespace ${missing} has no default service account yet, so it would refuse pods; the serviceaccount controller may have failed`,
      );
    }
  } finally {
    await client.close();
  }
}

/** More time for /readyz per fake node (registering 1,000 takes about 25 s on two cores). */
const FAKE_NODE_READY_MS = 50;
const LOG_LINES_ON_FAILURE = 20;

/** Creates and starts cluster `options.name`, and points the kubeconfig's current context at it. */
export async function up(options: UpOptions): Promise<UpResult> {
  const env = options.env ?? process.env;
  const config = options.config;
  const nodes = options.nodes ?? config?.nodes.length ?? 0;
  if (config && options.nodes !== undefined && options.nodes !== config.nodes.length) {
    throw new ClusterError(
      `--nodes ${options.nodes} disagrees with the ${config.nodes.length} nodes of the config file`,
      'leave out --nodes, or change the config',
    );
  }
  const podSubnet = config?.networking.podSubnet ?? POD_SUBNET;
  if (nodes > podSubnetCapacity(podSubnet)) {
    throw new ClusterError(
      `the pod subnet ${podSubnet} has room for ${podSubnetCapacity(podSubnet)} nodes (a /24 each), not ${nodes}`,
      'use a larger networking.podSubnet',
    );
  }
  assertValidClusterName(options.name);
  assertSupportedNodeCount(nodes);
  const datastoreEndpoint = options.datastoreEndpoint ?? config?.datastore?.endpoint;
  if (datastoreEndpoint !== undefined) {
    try {
      parseDatastoreEndpoint(datastoreEndpoint);
    } catch (error) {
      throw new ClusterError(`--datastore-endpoint: ${errorMessage(error)}`);
    }
  }
  const controlPlanes = options.controlPlanes ?? 1;
  assertSupportedControlPlanes(controlPlanes, datastoreEndpoint);
  const fakeNodes = options.fakeNodes ?? 0;
  assertSupportedFakeNodeCount(fakeNodes);
  const paths = clusterPaths(options.name, env);
  if (await clusterDirectoryExists(paths)) {
    const pid = await readControlPlanePid(paths);
    if (pid === undefined || !isControlPlaneProcess(pid, paths)) throw stoppedClusterError(options.name);
    throw clusterExistsError(options.name);
  }
  const registryOption = options.registry ?? config?.registry;
  if (registryOption && nodes === 0) {
    throw new ClusterError(
      'a local registry serves node containers, and this cluster has none',
      'leave out --registry, or give --nodes 1 or more',
    );
  }
  // A registry made for this cluster alone must find its port free; a shared one may exist.
  if (registryOption && registryOption.name === undefined) {
    await assertRegistryPortAvailable(registryOption.port ?? DEFAULT_REGISTRY_PORT);
  }
  const requestedPort = options.apiPort ?? config?.networking.apiServerPort;
  if (requestedPort !== undefined) await assertPortAvailable(requestedPort);
  const apiPort = requestedPort ?? (await findFreePort());
  const controlPlanePorts = controlPlanes > 1 ? await findFreePorts(controlPlanes, apiPort) : undefined;
  const kubeconfigPath = kubeconfigPathForMerge(options.kubeconfigPath, env);
  await assertKubeconfigWritable(kubeconfigPath);

  // The Docker half is loaded only for nodes: dockerode and its dependencies cost a fifth of a
  // second of CPU to load, which `up --nodes 0` need not pay.
  const docker = nodes > 0 ? await import('./nodes/node-steps.js') : undefined;
  const provider = docker?.dockerProvider();
  if (provider)
    await provider.checkAvailable().catch((error: unknown) => {
      throw new ClusterError(errorMessage(error));
    });

  const context = kubeconfigContextName(options.name);
  const record: ClusterRecord = {
    name: options.name,
    apiPort,
    server: apiServerUrl(apiPort),
    createdAt: new Date().toISOString(),
    nodes,
    ...(fakeNodes > 0 && { fakeNodes }),
    ...(podSubnet !== POD_SUBNET && { podSubnet }),
    ...(datastoreEndpoint !== undefined && { datastoreEndpoint }),
    ...(config?.componentFlags && { componentFlags: config.componentFlags }),
    ...(controlPlanePorts && { controlPlanePorts }),
    version: TKUBE_VERSION,
    kubernetesVersion: KUBERNETES_GIT_VERSION,
    kubeconfigPath,
  };
  const undo: (() => Promise<unknown>)[] = [];
  const checkpoint = () => options.signal?.throwIfAborted();
  let pki: ClusterCertificates | undefined;
  let controlPlane: StartedControlPlane | undefined;
  let network: ClusterNetwork | undefined;
  let networkCreated: Promise<ClusterNetwork> | undefined;
  let nodeImage = options.image;
  const planned: PlannedNode[] = [];
  let containersCreated: Promise<void> = Promise.resolve();
  let containersStarted: Promise<void> = Promise.resolve();
  // The agents, installed while the control plane starts: each registers its node once the API server answers.
  let agentsInstalled: Promise<void> = Promise.resolve();
  const nodeSteps: Step[] = provider
    ? [
        {
          title: 'Ensuring the node image',
          run: async (report) => {
            // The network is made meanwhile: neither needs the other. Its undo waits for it, so
            // a failed image check cannot leave behind a network created after the rollback.
            networkCreated = docker!.createClusterNetwork(provider, options.name);
            networkCreated.catch(() => undefined);
            undo.push(async () => {
              await networkCreated?.catch(() => undefined);
              await provider.removeCluster(options.name);
            });
            nodeImage = (await docker!.buildNodeImage(options.image, report)).tag;
            checkpoint();
          },
        },
        {
          title: 'Creating the cluster network',
          run: async () => {
            network = await networkCreated!;
            record.network = { subnet: network.subnet, gateway: network.gateway };
            planned.push(...planNodes(options.name, nodes, network, config?.nodes, podSubnet));
            await writeClusterRecord(paths, record);
            checkpoint();
          },
        },
        ...(registryOption
          ? [
              {
                title: 'Starting the local registry',
                run: async () => {
                  const shared = registryOption.name !== undefined;
                  const started = await docker!.startLocalRegistry(provider, {
                    name: registryOption.name ?? ownedRegistryName(options.name),
                    ...(registryOption.port !== undefined && { port: registryOption.port }),
                    defaultPort: DEFAULT_REGISTRY_PORT,
                    ...(!shared && { owner: options.name }),
                    network: network!.name,
                  });
                  // An owned registry goes with the cluster's resources; a shared one made now goes too.
                  if (shared && started.created)
                    undo.push(() => docker!.removeLocalRegistry(provider, started.name));
                  record.registry = { name: started.name, port: started.port, shared };
                  await writeClusterRecord(paths, record);
                  checkpoint();
                },
              },
            ]
          : []),
        {
          // The containers start while certificates are made and the control plane starts; the
          // agent step waits for them.
          title: `Starting ${nodes} node container${nodes === 1 ? '' : 's'}`,
          run: async () => {
            containersCreated = docker!.createNodeContainers(provider, {
              cluster: options.name,
              clusterDir: paths.dir,
              image: nodeImage!,
              nodes: planned,
            });
            containersStarted = containersCreated.then(() =>
              docker!.waitForNodeRuntimes(provider, planned, paths.dir),
            );
            containersStarted.catch(() => undefined);
          },
        },
      ]
    : [];
  const nodeStartSteps: Step[] = provider
    ? [
        {
          title: `Installing the agent in ${nodes} node${nodes === 1 ? '' : 's'}`,
          run: async () => {
            await containersStarted;
            await agentsInstalled;
            checkpoint();
          },
        },
        {
          title: `Waiting for ${nodes} node${nodes === 1 ? '' : 's'} to be Ready`,
          run: async () => {
            const client = adminClient(record.server, pki!);
            try {
              await waitForNodesReady(
                client,
                planned.map((node) => node.name),
                options.nodesReadyTimeoutMs ?? DEFAULT_NODES_READY_TIMEOUT_MS,
                options.signal,
              );
              await labelNodes(client, new Map(planned.map((node) => [node.name, node.labels])));
            } finally {
              await client.close();
            }
          },
        },
        ...(registryOption
          ? [
              {
                title: 'Pointing the nodes at the local registry',
                run: async () => {
                  const registry = record.registry!;
                  await configureNodesForRegistry(
                    provider!,
                    planned.map((node) => node.name),
                    registry,
                  );
                  const client = adminClient(record.server, pki!);
                  try {
                    await publishRegistryHosting(client, registry);
                  } finally {
                    await client.close();
                  }
                },
              },
            ]
          : []),
      ]
    : [];

  try {
    await runSteps(
      [
        {
          title: `Preparing the state directory ${paths.dir}`,
          run: async () => {
            await claimClusterDirectory(paths);
            undo.push(() => removeClusterDirectory(paths));
            await writeClusterRecord(paths, record);
            checkpoint();
          },
        },
        ...nodeSteps,
        {
          title: 'Generating certificates',
          run: async () => {
            // The service-account key is the control plane's to make (see ensureClusterCertificates).
            pki = await ensureClusterCertificates(paths.pkiDir, {
              ...(network && { apiServerSans: { ipAddresses: [network.gateway] } }),
            });
            checkpoint();
          },
        },
        {
          title: controlPlanePorts
            ? `Starting ${controlPlanes} control planes behind port ${apiPort}`
            : `Starting the control plane on port ${apiPort}`,
          run: async () => {
            const started = startControlPlane(
              paths,
              apiPort,
              options.controlPlaneCommand,
              controlPlaneSettingsOf(record),
            );
            controlPlane = started;
            undo.push(() => stopStartedControlPlane(started, paths));
            if (started.pid > 0) await writeControlPlanePid(paths, started.pid);
            if (provider) {
              // Into the nodes' mounted directories at once, while the containers start: each
              // entrypoint starts its agent once containerd runs, and the agent retries
              // registration until the API server answers, so the agents' loading overlaps the
              // control plane's start.
              agentsInstalled = docker!.installAgents({
                clusterDir: paths.dir,
                nodes: planned,
                server: apiServerUrlAt(network!.gateway, apiPort),
                podSubnet,
                ca: pki!.ca,
              });
              agentsInstalled.catch(() => undefined);
            }
            checkpoint();
          },
        },
        {
          title: 'Waiting for the API server to be ready',
          run: () =>
            waitForReadyz({
              apiPort,
              caCertificatePem: pki!.ca.certificatePem,
              // The control plane answers once its fake nodes are Ready.
              timeoutMs:
                (options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS) + fakeNodes * FAKE_NODE_READY_MS,
              givenUp: controlPlane!.exited.then(describeEarlyExit),
              signal: options.signal,
            })
              .then(() =>
                waitForPodAdmission(record.server, pki!, {
                  timeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
                  signal: options.signal,
                }),
              )
              .catch(async (error: unknown) => {
                if (options.signal?.aborted) throw error;
                throw await withLogTail(errorMessage(error), paths);
              }),
        },
        ...(controlPlanePorts
          ? [
              eachControlPlaneReadyStep(
                controlPlanePorts,
                () => pki!.ca.certificatePem,
                options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
                () => controlPlane!,
                paths,
                options.signal,
              ),
            ]
          : []),
        ...(controlPlanePorts && fakeNodes > 0
          ? [
              {
                // One control plane's readiness does not cover them here: the leader runs them.
                title: `Waiting for ${fakeNodes} fake node${fakeNodes === 1 ? '' : 's'} to be Ready`,
                run: async () => {
                  const client = adminClient(record.server, pki!);
                  try {
                    await waitForNodesReady(
                      client,
                      Array.from({ length: fakeNodes }, (_, index) => fakeNodeName(index)),
                      (options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS) + fakeNodes * FAKE_NODE_READY_MS,
                      options.signal,
                    );
                  } finally {
                    await client.close();
                  }
                },
              },
            ]
          : []),
        ...nodeStartSteps,
        {
          title: `Writing the kubeconfig context ${context} to ${kubeconfigPath}`,
          run: async () => {
            undo.push(() => deleteKubeconfigEntry(kubeconfigPath, context));
            await writeKubeconfigEntry(
              kubeconfigPath,
              kubeconfigEntry(options.name, record.server, {
                caCertificatePem: pki!.ca.certificatePem,
                clientCertificatePem: pki!.admin.certificatePem,
                clientKeyPem: pki!.admin.privateKeyPem,
              }),
            );
            checkpoint();
          },
        },
      ],
      options.progress ?? defaultProgressMode(process.stderr, env),
    );
  } catch (error) {
    // Containers still being created, or written to, must settle before their removal.
    await containersStarted.catch(() => undefined);
    await agentsInstalled.catch(() => undefined);
    // The state directory goes with the rollback: keep the control plane's log for the user.
    const keptLog = options.retain
      ? paths.controlPlaneLog
      : await keepLog(paths.controlPlaneLog, options.name);
    if (!options.retain) for (const action of undo.reverse()) await action().catch(() => undefined);
    if (options.signal?.aborted) {
      throw new ClusterError(`interrupted: cluster ${JSON.stringify(options.name)} was not created`);
    }
    if (error instanceof ClusterError) throw error;
    const step = failedStepOf(error);
    throw new ClusterError(
      `failed to create cluster ${JSON.stringify(options.name)}: ${errorMessage(error)}${step ? ` (step: ${step})` : ''}`,
      options.retain
        ? `what was created is kept (--retain); the control plane log is ${keptLog}`
        : `everything created was removed (--retain keeps it)${keptLog ? `; the control plane log is in ${keptLog}` : ''}`,
    );
  }
  return { record, context, kubeconfigPath };
}

/** Copies a log out of the state directory about to be removed; undefined when there is none. */
async function keepLog(path: string, cluster: string): Promise<string | undefined> {
  const kept = join(tmpdir(), `tkube-${cluster}-failed-${Date.now()}.log`);
  return copyFile(path, kept).then(
    () => kept,
    () => undefined,
  );
}

/** The most control planes `up` starts (etcd's advice for members is 3, 5 or 7). */
export const MAX_CONTROL_PLANES = 7;

/** More than one control plane needs a datastore that several processes share. */
export function assertSupportedControlPlanes(
  controlPlanes: number,
  datastoreEndpoint: string | undefined,
): void {
  if (!Number.isSafeInteger(controlPlanes) || controlPlanes < 1 || controlPlanes > MAX_CONTROL_PLANES) {
    throw new ClusterError(
      `--control-planes ${controlPlanes}: the control plane count must be a whole number from 1 to ${MAX_CONTROL_PLANES}`,
    );
  }
  if (
    controlPlanes > 1 &&
    (datastoreEndpoint === undefined || parseDatastoreEndpoint(datastoreEndpoint).kind === 'sqlite')
  ) {
    throw new ClusterError(
      `--control-planes ${controlPlanes} needs a datastore the control planes share, and SQLite is one process's file`,
      'give --datastore-endpoint postgres://USER@HOST:PORT/DB (or another shared store)',
    );
  }
}

/** `count` free ports on 127.0.0.1, all different and none of them `taken`. */
async function findFreePorts(count: number, taken: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = await findFreePort();
    if (port !== taken) ports.add(port);
  }
  return [...ports];
}

/** Nodes: a whole number from 0 to MAX_NODES. */
export function assertSupportedNodeCount(nodes: number): void {
  if (!Number.isSafeInteger(nodes) || nodes < 0 || nodes > MAX_NODES) {
    throw new ClusterError(`--nodes ${nodes}: the node count must be a whole number from 0 to ${MAX_NODES}`);
  }
}

export function assertSupportedFakeNodeCount(fakeNodes: number): void {
  if (!Number.isSafeInteger(fakeNodes) || fakeNodes < 0 || fakeNodes > MAX_FAKE_NODES) {
    throw new ClusterError(
      `--fake-nodes ${fakeNodes}: the fake node count must be a whole number from 0 to ${MAX_FAKE_NODES}`,
    );
  }
}

/** What to tell the user once the cluster is up (kind's closing lines). */
export function usageLines(result: UpResult, explicitKubeconfig: boolean): string[] {
  const kubeconfigFlag = explicitKubeconfig ? ` --kubeconfig ${result.kubeconfigPath}` : '';
  return [
    `Set kubectl context to "${result.context}"`,
    'You can now use your cluster with:',
    '',
    `kubectl cluster-info --context ${result.context}${kubeconfigFlag}`,
  ];
}

/** The step of `up` and `start` that waits for each of several control planes (`--control-planes N`). */
export function eachControlPlaneReadyStep(
  ports: readonly number[],
  /** Read when the step runs, after the steps that make the PKI and start the control plane. */
  caCertificatePem: () => string,
  timeoutMs: number,
  controlPlane: () => StartedControlPlane,
  paths: ClusterPaths,
  signal?: AbortSignal,
): Step {
  return {
    title: `Waiting for each of the ${ports.length} control planes to be ready`,
    run: () =>
      waitForEachControlPlane(ports, {
        caCertificatePem: caCertificatePem(),
        timeoutMs,
        givenUp: controlPlane().exited.then(describeEarlyExit),
        signal,
      }).catch(async (error: unknown) => {
        if (signal?.aborted) throw error;
        throw await withLogTail(errorMessage(error), paths);
      }),
  };
}

export function describeEarlyExit(exit: Awaited<StartedControlPlane['exited']>): string {
  if (exit.error) return `the control plane could not be started: ${exit.error.message}`;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `the control plane ${how} before the API server was ready`;
}

export async function withLogTail(message: string, paths: ClusterPaths): Promise<Error> {
  const lines = await lastLogLines(paths.controlPlaneLog, LOG_LINES_ON_FAILURE).catch(() => []);
  if (lines.length === 0) return new Error(`${message} (its log is empty)`);
  return new Error(`${message}; the last lines of its log:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

async function stopStartedControlPlane(started: StartedControlPlane, paths: ClusterPaths): Promise<void> {
  if (started.pid <= 0) return;
  await stopControlPlane(started.pid, paths);
}
