// What a pod sync has to do to the runtime (computePodActions in kuberuntime_manager.go): a new
// sandbox when there is none ready (killing what is left), the next init containers (sidecars
// keep running once started), the containers to start by restart policy, and the containers to
// kill because their definition changed or a liveness or startup probe failed, and the ephemeral
// containers not started yet.
import type { Container, Pod } from '../../../api/types/core-v1.generated.js';
import { containerHash } from '../runtime/container-hash.js';
import { latestContainer, type PodRuntime, type RuntimeContainer } from '../runtime/pod-runtime.js';
import {
  isRestartableInitContainer,
  restartsOnFailure,
  shouldContainerBeRestarted,
} from '../runtime/restart-policy.js';

export interface ContainerToKill {
  readonly id: string;
  readonly name: string;
  readonly container?: Container;
  /** The Killing event's message ('' for "Stopping container <name>"). */
  readonly message: string;
  readonly reason: '' | 'LivenessProbe' | 'StartupProbe' | 'Unknown';
}

export interface PodActions {
  readonly killPod: boolean;
  readonly createSandbox: boolean;
  /** The sandbox to use, or the one being replaced when createSandbox. */
  readonly sandboxId: string;
  /** The attempt of the sandbox to create. */
  readonly attempt: number;
  readonly initContainersToStart: number[];
  readonly containersToStart: number[];
  /** Ephemeral containers never started (they are never restarted). */
  readonly ephemeralContainersToStart: number[];
  readonly containersToKill: ContainerToKill[];
}

/** What the probes said about running containers. */
export interface ProbeState {
  livenessFailed(containerId: string): boolean;
  /** undefined while a startup probe has not decided yet. */
  startupResult(containerId: string): 'success' | 'failure' | undefined;
}

export interface SandboxChange {
  readonly changed: boolean;
  readonly attempt: number;
  readonly sandboxId: string;
}

/** Whether the pod needs a new sandbox, and with which attempt number (PodSandboxChanged). */
export function podSandboxChanged(pod: Pod, runtime: PodRuntime): SandboxChange {
  const latest = runtime.sandboxes[0];
  if (!latest) return { changed: true, attempt: 0, sandboxId: '' };
  const ready = runtime.sandboxes.filter((sandbox) => sandbox.ready).length;
  const next = { changed: true, attempt: latest.attempt + 1, sandboxId: latest.id };
  if (ready > 1 || !latest.ready) return next;
  const hostNetwork = pod.spec?.hostNetwork === true;
  if (latest.hostNetwork !== hostNetwork) return { ...next, sandboxId: '' };
  if (!hostNetwork && latest.ips.length === 0) return next;
  return { changed: false, attempt: latest.attempt, sandboxId: latest.id };
}

function changed(container: Container, status: RuntimeContainer): boolean {
  return status.info.hash !== '' && status.info.hash !== containerHash(container);
}

function succeeded(container: Container, runtime: PodRuntime): boolean {
  const status = latestContainer(runtime, container.name);
  return status?.state === 'exited' && status.exitCode === 0;
}

function hasAnyRegularContainerCreated(pod: Pod, runtime: PodRuntime): boolean {
  return (pod.spec?.containers ?? []).some(
    (container) => latestContainer(runtime, container.name) !== undefined,
  );
}

interface MutableActions {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: string;
  attempt: number;
  initContainersToStart: number[];
  containersToStart: number[];
  ephemeralContainersToStart: number[];
  containersToKill: ContainerToKill[];
}

/**
 * The init containers to start, walking back from the last one (completed ones may have been
 * removed); returns whether the pod is initialized.
 */
function initContainerActions(
  pod: Pod,
  runtime: PodRuntime,
  probes: ProbeState,
  actions: MutableActions,
): boolean {
  const initContainers = pod.spec?.initContainers ?? [];
  if (initContainers.length === 0) return true;
  let podHasInitialized = (pod.spec?.containers ?? []).some((container) => {
    const state = latestContainer(runtime, container.name)?.state;
    return state === 'created' || state === 'running';
  });
  let previouslyInitialized = podHasInitialized;
  const restartOnFailure = restartsOnFailure(pod);
  const toStart: number[] = [];
  const kill = (
    status: RuntimeContainer,
    container: Container,
    message: string,
    reason: ContainerToKill['reason'],
  ) => actions.containersToKill.push({ id: status.id, name: container.name, container, message, reason });

  for (let i = initContainers.length - 1; i >= 0; i--) {
    const container = initContainers[i]!;
    const restartable = isRestartableInitContainer(container);
    const status = latestContainer(runtime, container.name);
    if (!status) {
      if (previouslyInitialized && restartable) toStart.push(i);
      continue;
    }
    if (previouslyInitialized && !restartable) continue;

    switch (status.state) {
      case 'created':
        toStart.push(i);
        break;
      case 'running': {
        if (!restartable) break;
        if (container.startupProbe) {
          const startup = probes.startupResult(status.id);
          if (startup === undefined) break;
          if (startup === 'failure') {
            kill(status, container, `Init container ${container.name} failed startup probe`, 'StartupProbe');
            toStart.push(i);
            break;
          }
        }
        if (i === initContainers.length - 1) podHasInitialized = true;
        else if (!previouslyInitialized) toStart.push(i + 1);
        if (changed(container, status)) {
          kill(status, container, `Init container ${container.name} definition changed`, '');
          toStart.push(i);
          break;
        }
        if (container.livenessProbe && probes.livenessFailed(status.id)) {
          kill(status, container, `Init container ${container.name} failed liveness probe`, 'LivenessProbe');
          toStart.push(i);
        }
        break;
      }
      case 'exited':
        if (restartable) {
          toStart.push(i);
        } else if (status.exitCode !== 0) {
          if (!restartOnFailure) {
            actions.killPod = true;
            actions.initContainersToStart = [];
            return false;
          }
          toStart.push(i);
        } else if (i === initContainers.length - 1) {
          podHasInitialized = true;
        } else {
          toStart.push(i + 1);
        }
        break;
      default:
        if (!restartable && !restartOnFailure) {
          actions.killPod = true;
          actions.initContainersToStart = [];
          return false;
        }
        kill(
          status,
          container,
          `Init container is in "${status.state}" state, try killing it before restart`,
          'Unknown',
        );
        toStart.push(i);
    }
    previouslyInitialized = true;
  }
  if (!previouslyInitialized) toStart.push(0);
  actions.initContainersToStart = toStart.reverse();
  return podHasInitialized;
}

export function computePodActions(pod: Pod, runtime: PodRuntime, probes: ProbeState): PodActions {
  const sandbox = podSandboxChanged(pod, runtime);
  const actions: MutableActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: [],
  };
  const containers = pod.spec?.containers ?? [];

  if (sandbox.changed) {
    // Containers that ran already with restartPolicy Never: done, no new sandbox for them.
    if (!restartsOnFailure(pod) && sandbox.attempt !== 0 && runtime.containers.length > 0) {
      actions.createSandbox = false;
      return actions;
    }
    const toStart = containers
      .map((_, index) => index)
      .filter(
        (index) => !(pod.spec?.restartPolicy === 'OnFailure' && succeeded(containers[index]!, runtime)),
      );
    if (toStart.length === 0 && hasAnyRegularContainerCreated(pod, runtime)) {
      actions.createSandbox = false;
      return actions;
    }
    if ((pod.spec?.initContainers?.length ?? 0) > 0) {
      actions.initContainersToStart = [0];
      return actions;
    }
    actions.containersToStart = toStart;
    return actions;
  }

  // Ephemeral containers may start before initialization completes; each runs once.
  (pod.spec?.ephemeralContainers ?? []).forEach((container, index) => {
    if (!runtime.containers.some((c) => c.name === container.name))
      actions.ephemeralContainersToStart.push(index);
  });
  const initialized = initContainerActions(pod, runtime, probes, actions);
  if (actions.killPod || !initialized) return actions;

  let keep = 0;
  containers.forEach((container, index) => {
    const status = latestContainer(runtime, container.name);
    if (status?.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, runtime)) {
        actions.containersToStart.push(index);
        if (status?.state === 'unknown') {
          actions.containersToKill.push({
            id: status.id,
            name: container.name,
            container,
            message: `Container is in "${status.state}" state, try killing it before restart`,
            reason: 'Unknown',
          });
        }
      }
      return;
    }
    let restart = restartsOnFailure(pod);
    let message: string;
    let reason: ContainerToKill['reason'] = '';
    if (changed(container, status)) {
      message = `Container ${container.name} definition changed`;
      restart = true;
    } else if (container.livenessProbe && probes.livenessFailed(status.id)) {
      message = `Container ${container.name} failed liveness probe`;
      reason = 'LivenessProbe';
    } else if (container.startupProbe && probes.startupResult(status.id) === 'failure') {
      message = `Container ${container.name} failed startup probe`;
      reason = 'StartupProbe';
    } else {
      keep++;
      return;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      actions.containersToStart.push(index);
    }
    actions.containersToKill.push({ id: status.id, name: container.name, container, message, reason });
  });

  if (keep === 0 && actions.containersToStart.length === 0) {
    actions.killPod = true;
    // Sidecars must not keep a finished pod alive.
    actions.initContainersToStart = [];
  }
  return actions;
}
