// Container statuses as the kubelet reports them (convertToAPIContainerStatuses): the newest
// runtime container gives the state, the one before it the last state; containers that never
// ran wait as ContainerCreating (PodInitializing in pods with init containers); a container
// that is to be started again waits with the reason of its last failed start (ErrImagePull,
// CrashLoopBackOff, CreateContainerConfigError ...).
import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  VolumeMountStatus,
} from '../../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../../client/events/time.js';
import type { PodRuntime, RuntimeContainer } from '../runtime/pod-runtime.js';
import { isRestartableInitContainer, shouldContainerBeRestarted } from '../runtime/restart-policy.js';

/** A container's last failed start: the reason and message its waiting state shows. */
export interface StartFailure {
  readonly reason: string;
  readonly message: string;
}

/** What the probes say about running containers (by container id). */
export interface ProbeView {
  isReady(containerId: string): boolean;
  isStarted(containerId: string): boolean;
}

export const CONTAINER_RUNTIME_SCHEME = 'containerd://';
const STATUS_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

function time(ms: number): string | undefined {
  return ms > 0 ? rfc3339(ms) : undefined;
}

function runtimeState(container: RuntimeContainer, containerID: string): ContainerState {
  switch (container.state) {
    case 'running':
      return { running: { startedAt: time(container.startedAt) } };
    case 'exited':
      return {
        terminated: {
          exitCode: container.exitCode,
          reason: container.reason || (container.exitCode === 0 ? 'Completed' : 'Error'),
          ...(container.message ? { message: container.message } : {}),
          startedAt: time(container.startedAt),
          finishedAt: time(container.finishedAt),
          containerID,
        },
      };
    default:
      // Created-but-not-running and unknown containers are "waiting to be running".
      return { waiting: {} };
  }
}

/** An image the runtime names only by id shows as the spec's reference. */
function imageName(container: RuntimeContainer, spec: Container): string {
  return container.image && !container.image.startsWith('sha256:') ? container.image : (spec.image ?? '');
}

function volumeMountStatuses(container: Container): VolumeMountStatus[] | undefined {
  if (!container.volumeMounts?.length) return undefined;
  return container.volumeMounts.map((mount) => ({
    name: mount.name,
    mountPath: mount.mountPath,
    ...(mount.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
  }));
}

function pick(list: Record<string, string> | undefined): Record<string, string> | undefined {
  const picked = Object.fromEntries(
    Object.entries(list ?? {}).filter(([name]) => STATUS_RESOURCES.includes(name)),
  );
  return Object.keys(picked).length > 0 ? picked : undefined;
}

function runningResources(spec: Container, status: ContainerStatus): void {
  const limits = pick(spec.resources?.limits);
  const requests = pick(spec.resources?.requests);
  if (requests) status.allocatedResources = requests;
  status.resources = { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
}

/**
 * A termination message once reported stays: its file may be gone by now (a restarted kubelet
 * reading a pod whose files were cleaned up).
 */
function keepReportedMessage(
  state: ContainerState,
  previous: ContainerStatus | undefined,
  containerID: string,
): void {
  const terminated = state.terminated;
  if (!terminated || terminated.message) return;
  for (const earlier of [previous?.state?.terminated, previous?.lastState?.terminated]) {
    if (earlier?.containerID === containerID && earlier.message) terminated.message = earlier.message;
  }
}

export function containerStatuses(
  pod: Pod,
  runtime: PodRuntime,
  containers: readonly Container[],
  previous: readonly ContainerStatus[] | undefined,
  startFailures: ReadonlyMap<string, StartFailure>,
  isInit: boolean,
): ContainerStatus[] {
  const hasInitContainers = (pod.spec?.initContainers?.length ?? 0) > 0;
  const defaultReason = hasInitContainers ? 'PodInitializing' : 'ContainerCreating';
  const old = new Map((previous ?? []).map((status) => [status.name, status]));
  const statuses = new Map<string, ContainerStatus>();

  for (const container of containers) {
    const oldStatus = old.get(container.name);
    if (oldStatus?.state?.terminated) {
      statuses.set(container.name, structuredClone(oldStatus));
      continue;
    }
    const status: ContainerStatus = {
      name: container.name,
      image: container.image ?? '',
      imageID: '',
      ready: false,
      restartCount: oldStatus?.restartCount ?? 0,
      state: { waiting: { reason: defaultReason } },
    };
    const mounts = volumeMountStatuses(container);
    if (mounts) status.volumeMounts = mounts;
    if (oldStatus?.lastState?.terminated) status.lastState = structuredClone(oldStatus.lastState);
    statuses.set(container.name, status);
  }

  // A container that was running and has vanished from the runtime did stop, with an unknown code.
  for (const container of containers) {
    if (runtime.containers.some((c) => c.name === container.name)) continue;
    const oldStatus = old.get(container.name);
    if (!oldStatus?.state?.running) continue;
    const status = statuses.get(container.name)!;
    if (status.state?.waiting?.reason !== defaultReason || status.lastState?.terminated) continue;
    status.lastState = {
      terminated: {
        reason: 'ContainerStatusUnknown',
        message:
          'The container could not be located when the pod was deleted.  The container used to be Running',
        exitCode: 137,
      },
    };
    if (!pod.metadata?.deletionTimestamp) status.restartCount += 1;
  }

  const seen = new Map<string, number>();
  for (const runtimeContainer of runtime.containers) {
    const spec = containers.find((c) => c.name === runtimeContainer.name);
    if (!spec) continue;
    const count = seen.get(spec.name) ?? 0;
    if (count >= 2) continue;
    seen.set(spec.name, count + 1);
    const containerID = `${CONTAINER_RUNTIME_SCHEME}${runtimeContainer.id}`;
    const state = runtimeState(runtimeContainer, containerID);
    keepReportedMessage(state, old.get(spec.name), containerID);
    if (count === 1) {
      statuses.get(spec.name)!.lastState = state;
      continue;
    }
    const status: ContainerStatus = {
      name: spec.name,
      image: imageName(runtimeContainer, spec),
      imageID: runtimeContainer.imageRef,
      containerID,
      ready: false,
      restartCount: runtimeContainer.info.restartCount,
      state,
    };
    const mounts = volumeMountStatuses(spec);
    if (mounts) status.volumeMounts = mounts;
    if (state.running) runningResources(spec, status);
    statuses.set(spec.name, status);
  }

  for (const container of containers) {
    const latest = runtime.containers.find((c) => c.name === container.name);
    if (isInit && latest?.state === 'exited' && latest.exitCode === 0) continue;
    if (!shouldContainerBeRestarted(container, pod, runtime)) continue;
    const failure = startFailures.get(container.name);
    if (!failure) continue;
    const status = statuses.get(container.name)!;
    if (status.state?.terminated) status.lastState = status.state;
    status.state = {
      waiting: { reason: failure.reason, ...(failure.message ? { message: failure.message } : {}) },
    };
  }

  const ordered = isInit
    ? containers.map((container) => statuses.get(container.name)!)
    : [...statuses.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ordered;
}

/**
 * Fills `started` and `ready` (the probe manager's UpdatePodStatus): a running container has
 * started once its startup probe passed, and is ready once started and its readiness probe
 * passed; a regular init container is ready once it completed.
 */
export function applyProbeResults(
  pod: Pod,
  statuses: ContainerStatus[],
  isInit: boolean,
  probes: ProbeView,
): void {
  const specs = isInit ? (pod.spec?.initContainers ?? []) : (pod.spec?.containers ?? []);
  for (const status of statuses) {
    const spec = specs.find((c) => c.name === status.name);
    const id = status.containerID?.slice(CONTAINER_RUNTIME_SCHEME.length) ?? '';
    const running = status.state?.running !== undefined;
    const started = running && (spec?.startupProbe === undefined || probes.isStarted(id));
    status.started = started;
    if (isInit && spec && !isRestartableInitContainer(spec)) {
      status.ready = status.state?.terminated?.exitCode === 0;
      continue;
    }
    status.ready = started && (spec?.readinessProbe === undefined || probes.isReady(id));
  }
}
