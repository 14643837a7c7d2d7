// What the container runtime holds for one pod, read through CRI and keyed by the labels the
// kubelet set: its sandboxes and containers, newest first, with the details the pod status and
// the sync need (IPs, exit codes, restart counts, termination messages). Statuses that cannot
// change any more (an exited container, a stopped sandbox) are cached by id and state.
import type { CriClient } from '../cri/client.js';
import type { Container, ContainerStatus, PodSandbox, PodSandboxStatus } from '../cri/types.js';
import { type ContainerInfo, containerInfo, POD_UID_LABEL } from './labels.js';
import { terminationMessage } from './termination-message.js';

export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

export interface RuntimeSandbox {
  readonly id: string;
  readonly podName: string;
  readonly podNamespace: string;
  readonly attempt: number;
  readonly ready: boolean;
  /** ms since the epoch */
  readonly createdAt: number;
  /** The pod's addresses (empty for host-network sandboxes and stopped ones). */
  readonly ips: readonly string[];
  /** The sandbox shares the node's network namespace. */
  readonly hostNetwork: boolean;
}

export interface RuntimeContainer {
  readonly id: string;
  readonly sandboxId: string;
  readonly name: string;
  readonly info: ContainerInfo;
  readonly state: RuntimeContainerState;
  /** ms since the epoch; 0 when not (yet) known. */
  readonly createdAt: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly exitCode: number;
  readonly reason: string;
  /** The runtime's message, with the termination message appended. */
  readonly message: string;
  /** The image as the runtime names it, and its id/digest reference. */
  readonly image: string;
  readonly imageRef: string;
  readonly logPath: string;
}

export interface PodRuntime {
  readonly uid: string;
  /** Newest first. */
  readonly sandboxes: readonly RuntimeSandbox[];
  /** Every container of the pod in every sandbox, newest first. */
  readonly containers: readonly RuntimeContainer[];
}

export const EMPTY_RUNTIME = (uid: string): PodRuntime => ({ uid, sandboxes: [], containers: [] });

/** The newest container of that name, if the runtime holds one. */
export function latestContainer(runtime: PodRuntime, name: string): RuntimeContainer | undefined {
  return runtime.containers.find((container) => container.name === name);
}

const STATES: Readonly<Record<string, RuntimeContainerState>> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
};

/** The kubelet's name of a CRI container state (`CONTAINER_RUNNING` is `running`). */
export function runtimeContainerState(criState: string): RuntimeContainerState {
  return STATES[criState] ?? 'unknown';
}

const nsToMs = (ns: number): number => (ns > 0 ? Math.floor(ns / 1e6) : 0);

export class PodRuntimeReader {
  private readonly sandboxCache = new Map<string, RuntimeSandbox>();
  private readonly containerCache = new Map<string, RuntimeContainer>();

  constructor(private readonly cri: CriClient) {}

  /** The pod's sandboxes and containers as the runtime has them now. */
  async read(uid: string): Promise<PodRuntime> {
    const selector = { labelSelector: { [POD_UID_LABEL]: uid } };
    const [sandboxes, containers] = await Promise.all([
      this.cri.listPodSandbox(selector),
      this.cri.listContainers(selector),
    ]);
    const [sandboxList, containerList] = await Promise.all([
      Promise.all(sandboxes.map((sandbox) => this.sandbox(sandbox))),
      Promise.all(containers.map((container) => this.container(container))),
    ]);
    return {
      uid,
      sandboxes: sandboxList
        .filter((sandbox): sandbox is RuntimeSandbox => sandbox !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt),
      containers: containerList
        .filter((container): container is RuntimeContainer => container !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt),
    };
  }

  /** Forgets cached statuses of ids the runtime no longer lists. */
  prune(liveIds: ReadonlySet<string>): void {
    for (const key of this.sandboxCache.keys())
      if (!liveIds.has(key.split('/')[0]!)) this.sandboxCache.delete(key);
    for (const key of this.containerCache.keys())
      if (!liveIds.has(key.split('/')[0]!)) this.containerCache.delete(key);
  }

  private async sandbox(item: PodSandbox): Promise<RuntimeSandbox | undefined> {
    const key = `${item.id}/${item.state}`;
    const cached = this.sandboxCache.get(key);
    if (cached) return cached;
    let status: PodSandboxStatus;
    try {
      status = await this.cri.podSandboxStatus(item.id);
    } catch {
      // Removed between the list and the status call.
      return undefined;
    }
    const network = status.linux?.namespaces?.options?.network;
    const ips = status.network?.ip
      ? [status.network.ip, ...status.network.additionalIps.map((ip) => ip.ip)]
      : [];
    const sandbox: RuntimeSandbox = {
      id: item.id,
      podName: item.metadata?.name ?? '',
      podNamespace: item.metadata?.namespace ?? '',
      attempt: item.metadata?.attempt ?? 0,
      ready: status.state === 'SANDBOX_READY',
      createdAt: nsToMs(status.createdAt || item.createdAt),
      ips,
      hostNetwork: network === 'NODE',
    };
    this.sandboxCache.set(key, sandbox);
    return sandbox;
  }

  private async container(item: Container): Promise<RuntimeContainer | undefined> {
    const key = `${item.id}/${item.state}`;
    const cached = this.containerCache.get(key);
    if (cached) return cached;
    let status: ContainerStatus;
    try {
      status = await this.cri.containerStatus(item.id);
    } catch {
      return undefined;
    }
    const container = await toRuntimeContainer(status, item.podSandboxId);
    // Cache only what is settled: the listed state agrees with the status we read.
    if (container.state === runtimeContainerState(item.state)) this.containerCache.set(key, container);
    return container;
  }
}

async function toRuntimeContainer(status: ContainerStatus, sandboxId: string): Promise<RuntimeContainer> {
  const info = containerInfo(status.labels, status.annotations);
  const state = runtimeContainerState(status.state);
  let message = '';
  if (state === 'exited') {
    message = status.message;
    // A container that could not even be started has no logs to fall back to.
    const fallbackToLogs =
      info.terminationMessagePolicy === 'FallbackToLogsOnError' &&
      status.exitCode !== 0 &&
      status.reason !== 'ContainerCannotRun';
    const own = await terminationMessage(status, info.terminationMessagePath, fallbackToLogs);
    if (own) message = message ? `${message}: ${own}` : own;
  }
  return {
    id: status.id,
    sandboxId,
    name: info.containerName || status.metadata?.name || '',
    info,
    state,
    createdAt: nsToMs(status.createdAt),
    startedAt: state === 'created' ? 0 : nsToMs(status.startedAt),
    finishedAt: state === 'exited' ? nsToMs(status.finishedAt) : 0,
    exitCode: state === 'exited' ? status.exitCode : 0,
    reason: state === 'exited' ? status.reason : '',
    message,
    image: status.image?.image ?? '',
    imageRef: status.imageRef,
    logPath: status.logPath,
  };
}
