// `tkube up`: checks, then a pipeline of named steps; any failure undoes what was done, so a
// failed `up` leaves no process, state directory or kubeconfig entry behind.
import { KUBERNETES_GIT_VERSION, TKUBE_VERSION } from '../api/version.js';
import { ensureClusterPki } from '../pki/cluster-pki.js';
import {
  type ControlPlaneCommand,
  lastLogLines,
  type StartedControlPlane,
  startControlPlane,
  stopControlPlane,
} from './controlplane-process.js';
import { ClusterError, errorMessage } from './errors.js';
import {
  apiServerUrl,
  assertKubeconfigWritable,
  deleteKubeconfigEntry,
  kubeconfigEntry,
  writeKubeconfigEntry,
} from './kubeconfig.js';
import { kubeconfigPathForMerge } from './kubeconfig-paths.js';
import { assertValidClusterName, kubeconfigContextName } from './name.js';
import { assertPortAvailable, findFreePort } from './ports.js';
import { defaultProgressMode, type ProgressMode, runSteps } from './progress.js';
import { waitForReadyz } from './readiness.js';
import {
  type ClusterPaths,
  type ClusterRecord,
  claimClusterDirectory,
  clusterDirectoryExists,
  clusterExistsError,
  clusterPaths,
  type Environment,
  removeClusterDirectory,
  writeClusterRecord,
  writeControlPlanePid,
} from './state.js';

export interface UpOptions {
  name: string;
  /** Node containers; only 0 (control plane only) is supported so far. */
  nodes?: number;
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
}

export interface UpResult {
  record: ClusterRecord;
  /** The kubeconfig context (and cluster and user) name. */
  context: string;
  kubeconfigPath: string;
}

export const DEFAULT_READY_TIMEOUT_MS = 60_000;
const LOG_LINES_ON_FAILURE = 20;

/** Creates and starts cluster `options.name`, and points the kubeconfig's current context at it. */
export async function up(options: UpOptions): Promise<UpResult> {
  const env = options.env ?? process.env;
  const nodes = options.nodes ?? 0;
  assertValidClusterName(options.name);
  assertSupportedNodeCount(nodes);
  const paths = clusterPaths(options.name, env);
  if (await clusterDirectoryExists(paths)) throw clusterExistsError(options.name);
  if (options.apiPort !== undefined) await assertPortAvailable(options.apiPort);
  const apiPort = options.apiPort ?? (await findFreePort());
  const kubeconfigPath = kubeconfigPathForMerge(options.kubeconfigPath, env);
  await assertKubeconfigWritable(kubeconfigPath);

  const context = kubeconfigContextName(options.name);
  const record: ClusterRecord = {
    name: options.name,
    apiPort,
    server: apiServerUrl(apiPort),
    createdAt: new Date().toISOString(),
    nodes,
    version: TKUBE_VERSION,
    kubernetesVersion: KUBERNETES_GIT_VERSION,
    kubeconfigPath,
  };
  const undo: (() => Promise<unknown>)[] = [];
  const checkpoint = () => options.signal?.throwIfAborted();
  let pki: Awaited<ReturnType<typeof ensureClusterPki>> | undefined;
  let controlPlane: StartedControlPlane | undefined;

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
        {
          title: 'Generating certificates',
          run: async () => {
            pki = await ensureClusterPki(paths.pkiDir);
            checkpoint();
          },
        },
        {
          title: `Starting the control plane on port ${apiPort}`,
          run: async () => {
            const started = startControlPlane(paths, apiPort, options.controlPlaneCommand);
            controlPlane = started;
            undo.push(() => stopStartedControlPlane(started, paths));
            if (started.pid > 0) await writeControlPlanePid(paths, started.pid);
            checkpoint();
          },
        },
        {
          title: 'Waiting for the API server to be ready',
          run: () =>
            waitForReadyz({
              apiPort,
              caCertificatePem: pki!.ca.certificatePem,
              timeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
              givenUp: controlPlane!.exited.then(describeEarlyExit),
              signal: options.signal,
            }).catch(async (error: unknown) => {
              if (options.signal?.aborted) throw error;
              throw await withLogTail(errorMessage(error), paths);
            }),
        },
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
    for (const action of undo.reverse()) await action().catch(() => undefined);
    if (options.signal?.aborted) {
      throw new ClusterError(`interrupted: cluster ${JSON.stringify(options.name)} was not created`);
    }
    if (error instanceof ClusterError) throw error;
    throw new ClusterError(
      `failed to create cluster ${JSON.stringify(options.name)}: ${errorMessage(error)}`,
    );
  }
  return { record, context, kubeconfigPath };
}

/** Only `--nodes 0` works until nodes run in Docker containers. */
export function assertSupportedNodeCount(nodes: number): void {
  if (!Number.isSafeInteger(nodes) || nodes < 0) {
    throw new ClusterError(`--nodes ${nodes}: the node count must be a whole number, 0 or more`);
  }
  if (nodes > 0) {
    throw new ClusterError(
      `--nodes ${nodes}: nodes in Docker containers are not implemented yet`,
      'use --nodes 0 for a cluster with the control plane only',
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

function describeEarlyExit(exit: Awaited<StartedControlPlane['exited']>): string {
  if (exit.error) return `the control plane could not be started: ${exit.error.message}`;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `the control plane ${how} before the API server was ready`;
}

async function withLogTail(message: string, paths: ClusterPaths): Promise<Error> {
  const lines = await lastLogLines(paths.controlPlaneLog, LOG_LINES_ON_FAILURE).catch(() => []);
  if (lines.length === 0) return new Error(`${message} (its log is empty)`);
  return new Error(`${message}; the last lines of its log:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

async function stopStartedControlPlane(started: StartedControlPlane, paths: ClusterPaths): Promise<void> {
  if (started.pid <= 0) return;
  await stopControlPlane(started.pid, paths);
}
