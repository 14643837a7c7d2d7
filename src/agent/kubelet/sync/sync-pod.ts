// One sync of a running pod against the runtime (SyncPod in kuberuntime_manager.go): kill what
// must go, create the sandbox when needed, start the next init containers, then the containers
// due to start, each behind its crash-loop back-off. Every step looks at the runtime first, so a
// sync can be repeated or interrupted at any point.
import { rm } from 'node:fs/promises';
import type { Container, ObjectReference, Pod } from '../../../api/types/core-v1.generated.js';
import type { Backoff } from '../backoff.js';
import type { DnsSettings } from '../config/dns.js';
import { hostNetworkHostsFile, managedHostsFile, podHostname } from '../config/hostname.js';
import { containerResources } from '../config/resources.js';
import { podLogDirectory, podSandboxConfig } from '../config/sandbox-config.js';
import { containerSecurityContext, formatPod, verifyRunAsNonRoot } from '../config/security.js';
import type { ContainerConfig, Mount, PodSandboxConfig } from '../cri/types.js';
import {
  EnvironmentError,
  type EnvObjects,
  expandCommandAndArgs,
  makeEnvironmentVariables,
} from '../env/container-env.js';
import type { ImageManager } from '../images/image-manager.js';
import { type ExecInContainer, runHook } from '../lifecycle/hooks.js';
import type { ContainerMetricType, KubeletMetrics } from '../metrics.js';
import { goDuration } from '../prober/go-text.js';
import { containerHash } from '../runtime/container-hash.js';
import { type ContainerType, containerAnnotations, containerLabels } from '../runtime/labels.js';
import { latestContainer, type PodRuntime } from '../runtime/pod-runtime.js';
import { isRestartableInitContainer } from '../runtime/restart-policy.js';
import type { StartFailure } from '../status/container-statuses.js';
import type { ContainerMount } from '../volumes/index.js';
import { type KillDeps, killContainer, killPod } from './kill.js';
import { computePodActions, type ProbeState } from './pod-actions.js';
import { ensureDir, type PodFiles, restartCountFromLogDir } from './pod-files.js';

export interface SyncerDeps extends KillDeps {
  readonly images: ImageManager;
  readonly files: PodFiles;
  readonly dns: DnsSettings;
  readonly logRoot: string;
  readonly hostIPs: readonly string[];
  readonly memoryCapacity: () => number;
  readonly envObjects: EnvObjects;
  readonly serviceEnv: (namespace: string, enableServiceLinks: boolean) => ReadonlyMap<string, string>;
  readonly probeState: ProbeState;
  /** A container started: probe it from now on. */
  readonly containerStarted: (pod: Pod, container: Container, containerId: string, podIP: string) => void;
  readonly containerBackoff: Backoff;
  /** Creates the pod's cgroup with the pod's limits (before its sandbox); none in tests. */
  readonly podCgroup?: (pod: Pod) => Promise<void>;
  readonly startFailures: (uid: string) => Map<string, StartFailure>;
  readonly exec: ExecInContainer;
  /** Counts sandbox and container starts (kubelet_started_*_total); none in tests. */
  readonly metrics?: Pick<KubeletMetrics, 'sandboxStart' | 'containerStart'>;
}

const CONTAINER_METRIC_TYPES: Readonly<Record<ContainerType, ContainerMetricType>> = {
  container: 'container',
  init: 'init_container',
  ephemeral: 'ephemeral_container',
};

export interface SyncResult {
  /** When to sync again although nothing changed (a back-off ends), ms since the epoch. */
  readonly wakeAt?: number;
}

const IMAGE_ERROR_RESYNC_MS = 1000;
const START_ERROR_RETRY_MS = 5000;

const PROPAGATION: Readonly<Record<string, Mount['propagation']>> = {
  private: 'PROPAGATION_PRIVATE',
  'host-to-container': 'PROPAGATION_HOST_TO_CONTAINER',
  bidirectional: 'PROPAGATION_BIDIRECTIONAL',
};

export function podRef(pod: Pod): ObjectReference {
  const meta = pod.metadata ?? {};
  return {
    kind: 'Pod',
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    apiVersion: 'v1',
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

/** A reference to one container of the pod (GenerateContainerRef), for its events. */
export function containerRef(pod: Pod, container: Container): ObjectReference {
  const init = pod.spec?.initContainers?.some((c) => c.name === container.name) ?? false;
  return { ...podRef(pod), fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${container.name}}` };
}

/** The crash-loop back-off key of a container (getStableKey). */
function backoffKey(pod: Pod, container: Container): string {
  const meta = pod.metadata ?? {};
  return `${meta.name}_${meta.namespace}_${meta.uid}_${container.name}_${containerHash(container)}`;
}

class StartError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

interface SandboxContext {
  readonly id: string;
  readonly config: PodSandboxConfig;
  readonly podIPs: readonly string[];
}

export class PodSyncer {
  constructor(private readonly deps: SyncerDeps) {}

  /** What killing containers and pods needs (the same dependencies). */
  get killDeps(): KillDeps {
    return this.deps;
  }

  /** The pod's addresses: the sandbox's, or the node's on the host network. */
  podIPs(pod: Pod, runtime: PodRuntime): string[] {
    if (pod.spec?.hostNetwork) return [...this.deps.hostIPs];
    const sandbox = runtime.sandboxes[0];
    return sandbox?.ready ? [...sandbox.ips] : [];
  }

  /**
   * `mounts` prepares the pod's volumes; it is called only when something is to be started, and
   * its failure (a missing volume source) stops the sync before a sandbox or container is made.
   */
  async syncPod(
    pod: Pod,
    runtime: PodRuntime,
    mounts: () => Promise<ReadonlyMap<string, ContainerMount[]>>,
  ): Promise<SyncResult> {
    const deps = this.deps;
    const actions = computePodActions(pod, runtime, deps.probeState);
    const uid = pod.metadata?.uid ?? '';

    if (actions.killPod) {
      if (actions.createSandbox && actions.sandboxId) {
        deps.record(
          podRef(pod),
          'Normal',
          'SandboxChanged',
          'Pod sandbox changed, it will be killed and re-created.',
        );
      }
      await killPod(deps, pod, runtime);
      if (actions.createSandbox) await this.purgeInitContainers(pod, runtime);
    } else {
      for (const kill of actions.containersToKill) {
        const status = runtime.containers.find((c) => c.id === kill.id);
        if (!status) continue;
        await killContainer(deps, pod, status, { message: kill.message, reason: kill.reason });
      }
    }
    if (!actions.createSandbox && actions.killPod) return {};
    if (
      !actions.createSandbox &&
      actions.initContainersToStart.length === 0 &&
      actions.containersToStart.length === 0 &&
      actions.ephemeralContainersToStart.length === 0
    ) {
      return {};
    }
    // Volumes and the sandbox do not depend on each other: prepare both at once. A volume that
    // fails leaves a sandbox without containers until the next try.
    const volumes = mounts();
    // Handled below; marked now so that an early failure is not an unhandled rejection.
    volumes.catch(() => undefined);
    let sandbox: SandboxContext;
    if (actions.createSandbox) {
      sandbox = await this.createSandbox(pod, actions.attempt);
    } else {
      const { config } = podSandboxConfig(pod, actions.attempt, deps.dns, deps.logRoot);
      sandbox = { id: actions.sandboxId, config, podIPs: this.podIPs(pod, runtime) };
    }
    const containerMounts = await volumes;

    const wakeups: number[] = [];
    const start = async (container: Container, type: ContainerType): Promise<boolean> => {
      const failures = deps.startFailures(uid);
      // Upstream counts a start once the back-off lets it through, and its failure by reason.
      let attempted = false;
      try {
        const wait = this.crashLoopBackoff(pod, container, runtime);
        if (wait) {
          wakeups.push(wait.until);
          throw new StartError('CrashLoopBackOff', wait.message);
        }
        attempted = true;
        await this.startContainer(
          pod,
          container,
          type,
          sandbox,
          runtime,
          containerMounts.get(container.name) ?? [],
        );
        failures.delete(container.name);
        deps.metrics?.containerStart(CONTAINER_METRIC_TYPES[type]);
        return true;
      } catch (error) {
        if (attempted) {
          deps.metrics?.containerStart(
            CONTAINER_METRIC_TYPES[type],
            error instanceof StartError ? error.reason : 'Unknown',
          );
        }
        if (!(error instanceof StartError)) throw error;
        failures.set(container.name, { reason: error.reason, message: error.message });
        const imageRetry = deps.images.backoffEnd(pod, container.image ?? '');
        if (error.reason === 'ErrImagePull') {
          // Sync again within the back-off, as the kubelet's worker does: the status turns ImagePullBackOff.
          wakeups.push(Date.now() + IMAGE_ERROR_RESYNC_MS);
        } else if (error.reason === 'ImagePullBackOff') {
          if (imageRetry !== undefined) wakeups.push(imageRetry);
        } else if (error.reason !== 'CrashLoopBackOff') {
          // A missing configMap may appear, a runtime error pass: try again soon.
          wakeups.push(Date.now() + START_ERROR_RETRY_MS);
        }
        return false;
      }
    };

    // Before init containers, as upstream: a failing init container does not keep a debugger out.
    for (const index of actions.ephemeralContainersToStart) {
      await start(pod.spec!.ephemeralContainers![index]! as Container, 'ephemeral');
    }
    if (actions.initContainersToStart.length > 0) await this.pruneInitContainers(pod, runtime);
    for (const index of actions.initContainersToStart) {
      const container = pod.spec!.initContainers![index]!;
      const started = await start(container, 'init');
      if (!started && !isRestartableInitContainer(container)) return { wakeAt: earliest(wakeups) };
      // A started sidecar without a startup probe lets initialization go on: no runtime change
      // will announce that, so the next sync comes at once.
      if (started && isRestartableInitContainer(container) && !container.startupProbe)
        wakeups.push(Date.now());
    }
    for (const index of actions.containersToStart) {
      await start(pod.spec!.containers[index]!, 'container');
    }
    return { wakeAt: earliest(wakeups) };
  }

  /** The crash-loop back-off of a container that exited (doBackOff): a message while it lasts. */
  private crashLoopBackoff(
    pod: Pod,
    container: Container,
    runtime: PodRuntime,
  ): { message: string; until: number } | undefined {
    const last = latestContainer(runtime, container.name);
    if (last?.state !== 'exited') return undefined;
    const backoff = this.deps.containerBackoff;
    const key = backoffKey(pod, container);
    if (backoff.isInBackOffSince(key, last.finishedAt)) {
      this.deps.record(
        containerRef(pod, container),
        'Warning',
        'BackOff',
        `Back-off restarting failed container ${container.name} in pod ${formatPod(pod)}`,
      );
      const delay = backoff.get(key);
      return {
        message: `back-off ${goDuration(delay)} restarting failed container=${container.name} pod=${formatPod(pod)}`,
        until: last.finishedAt + delay,
      };
    }
    backoff.next(key, last.finishedAt);
    return undefined;
  }

  private async createSandbox(pod: Pod, attempt: number): Promise<SandboxContext> {
    const deps = this.deps;
    const { config, dnsWarnings } = podSandboxConfig(pod, attempt, deps.dns, deps.logRoot);
    for (const warning of dnsWarnings) deps.record(podRef(pod), 'Warning', 'DNSConfigForming', warning);
    await ensureDir(config.logDirectory!);
    // Limits that cannot be set (a cgroup already holding more) leave the pod to its containers' own.
    await deps
      .podCgroup?.(pod)
      .catch((error: unknown) => deps.log(`kubelet: pod cgroup of ${formatPod(pod)}: ${String(error)}`));
    let id: string;
    try {
      id = await deps.cri.runPodSandbox(config);
      deps.metrics?.sandboxStart(false);
    } catch (error) {
      deps.metrics?.sandboxStart(true);
      const message = error instanceof Error ? error.message : String(error);
      deps.record(
        podRef(pod),
        'Warning',
        'FailedCreatePodSandBox',
        `Failed to create pod sandbox: ${message}`,
      );
      throw error;
    }
    let podIPs: string[] = [];
    if (pod.spec?.hostNetwork) podIPs = [...deps.hostIPs];
    else {
      const status = await deps.cri.podSandboxStatus(id);
      if (status.network?.ip)
        podIPs = [status.network.ip, ...status.network.additionalIps.map((ip) => ip.ip)];
    }
    return { id, config, podIPs };
  }

  private async writeEtcHosts(pod: Pod, podIPs: readonly string[]): Promise<string> {
    const uid = pod.metadata?.uid ?? '';
    const files = this.deps.files;
    const content = pod.spec?.hostNetwork
      ? hostNetworkHostsFile(await files.nodeHosts(), pod.spec.hostAliases)
      : managedHostsFile(podIPs, podHostname(pod, this.deps.dns.clusterDomain), pod.spec?.hostAliases);
    return files.writeEtcHosts(uid, content);
  }

  private async startContainer(
    pod: Pod,
    container: Container,
    type: ContainerType,
    sandbox: SandboxContext,
    runtime: PodRuntime,
    volumeMounts: readonly ContainerMount[],
  ): Promise<void> {
    const deps = this.deps;
    const ref = containerRef(pod, container);
    const uid = pod.metadata?.uid ?? '';
    const fail = (reason: string, message: string, eventMessage = message): never => {
      deps.record(ref, 'Warning', 'Failed', `Error: ${eventMessage}`);
      throw new StartError(reason, message);
    };

    const image = await deps.images.ensureImageExists(pod, container, ref, sandbox.config);
    if (!image.ok) fail(image.reason, image.message, image.reason);
    const pulled = image.ok ? image.image : undefined;
    const imageUser = { uid: pulled?.uid?.value, username: pulled?.username || undefined };

    const previous = latestContainer(runtime, container.name);
    const logDir = `${podLogDirectory(pod, deps.logRoot)}/${container.name}`;
    const restartCount = previous ? previous.info.restartCount + 1 : await restartCountFromLogDir(logDir);

    let envs: Awaited<ReturnType<typeof makeEnvironmentVariables>>;
    try {
      envs = await makeEnvironmentVariables(
        pod,
        container,
        { podIPs: sandbox.podIPs, hostIPs: deps.hostIPs },
        deps.envObjects,
        deps.serviceEnv(pod.metadata?.namespace ?? '', pod.spec?.enableServiceLinks !== false),
      );
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      return fail('CreateContainerConfigError', error.message);
    }
    const nonRoot = verifyRunAsNonRoot(pod, container, imageUser);
    if (nonRoot) fail('CreateContainerConfigError', nonRoot);

    const mounts: Mount[] = volumeMounts.map((mount) => ({
      containerPath: mount.containerPath,
      hostPath: mount.hostPath,
      readonly: mount.readOnly,
      propagation: PROPAGATION[mount.propagation ?? 'private'] ?? 'PROPAGATION_PRIVATE',
    }));
    if (sandbox.podIPs.length > 0 && !mounts.some((mount) => mount.containerPath === '/etc/hosts')) {
      mounts.push({
        containerPath: '/etc/hosts',
        hostPath: await this.writeEtcHosts(pod, sandbox.podIPs),
        readonly: false,
      });
    }
    if (container.terminationMessagePath) {
      const file = await deps.files.terminationMessageFile(uid, container.name);
      mounts.push({ containerPath: container.terminationMessagePath, hostPath: file, readonly: false });
    }
    await ensureDir(logDir);

    const { command, args } = expandCommandAndArgs(container, envs);
    const config: ContainerConfig = {
      metadata: { name: container.name, attempt: restartCount },
      image: { image: pulled!.id, userSpecifiedImage: container.image ?? '' },
      command,
      args,
      workingDir: container.workingDir ?? '',
      envs,
      mounts,
      labels: containerLabels(pod, container),
      annotations: containerAnnotations(pod, container, type, restartCount, containerHash(container)),
      logPath: `${container.name}/${restartCount}.log`,
      stdin: container.stdin === true,
      stdinOnce: container.stdinOnce === true,
      tty: container.tty === true,
      linux: {
        resources: containerResources(pod, container, deps.memoryCapacity()),
        securityContext: containerSecurityContext(pod, container, imageUser),
      },
    };

    let id: string;
    try {
      id = await deps.cri.createContainer(sandbox.id, config, sandbox.config);
    } catch (error) {
      return fail('CreateContainerError', criMessage(error));
    }
    deps.record(ref, 'Normal', 'Created', `Created container: ${container.name}`);
    try {
      await deps.cri.startContainer(id);
    } catch (error) {
      return fail('RunContainerError', criMessage(error));
    }
    deps.record(ref, 'Normal', 'Started', `Started container ${container.name}`);
    const podIP = sandbox.podIPs[0] ?? '';
    deps.containerStarted(pod, container, id, podIP);

    const postStart = container.lifecycle?.postStart;
    if (postStart) {
      const failure = await runHook(postStart, { pod, container, containerId: id, podIP, exec: deps.exec });
      if (failure) {
        deps.log(
          `kubelet: postStart hook of ${pod.metadata?.namespace}/${pod.metadata?.name}/${container.name}: ${failure}`,
        );
        deps.record(ref, 'Warning', 'FailedPostStartHook', 'PostStartHook failed');
        const running =
          (await deps.cri.containerStatus(id).catch(() => undefined))?.state === 'CONTAINER_RUNNING';
        await killContainer(
          deps,
          pod,
          { id, name: container.name, state: running ? 'running' : 'exited', info: {} },
          { message: 'FailedPostStartHook' },
        );
        throw new StartError('PostStartHookError', failure);
      }
    }
  }

  /** Old runs of init containers: only the latest of each is kept (pruneInitContainersBeforeStart). */
  private async pruneInitContainers(pod: Pod, runtime: PodRuntime): Promise<void> {
    for (const init of pod.spec?.initContainers ?? []) {
      const dead = runtime.containers.filter(
        (c) => c.name === init.name && (c.state === 'exited' || c.state === 'unknown'),
      );
      for (const container of dead.slice(1)) await this.removeContainer(container.id, container.logPath);
    }
  }

  /** A new sandbox starts initialization over: every init container run goes. */
  private async purgeInitContainers(pod: Pod, runtime: PodRuntime): Promise<void> {
    const names = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
    for (const container of runtime.containers) {
      if (names.has(container.name)) await this.removeContainer(container.id, container.logPath);
    }
  }

  async removeContainer(id: string, logPath: string): Promise<void> {
    await this.deps.cri
      .removeContainer(id)
      .catch((error: unknown) => this.deps.log(`kubelet: removing container ${id}: ${String(error)}`));
    if (logPath) await rm(logPath, { force: true });
  }
}

function criMessage(error: unknown): string {
  if (error instanceof Error && 'details' in error) return String((error as { details: unknown }).details);
  return error instanceof Error ? error.message : String(error);
}

function earliest(times: readonly number[]): number | undefined {
  return times.length > 0 ? Math.min(...times) : undefined;
}
