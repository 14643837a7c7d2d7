// The status the kubelet reports for a pod (generateAPIPodStatus): container statuses, the phase
// they add up to (getPhase), the kubelet's conditions with their transition times, addresses,
// QoS class and start time. Terminal phases never change back; the phase's reason and message
// stay while the phase does.
import type {
  Container,
  ContainerStatus,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
} from '../../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../../client/events/time.js';
import { podQos } from '../config/resources.js';
import type { PodRuntime } from '../runtime/pod-runtime.js';
import { isRestartableInitContainer } from '../runtime/restart-policy.js';
import {
  type Condition,
  containersReadyCondition,
  hasAnyRegularContainerStarted,
  initializedCondition,
  KUBELET_CONDITIONS,
  readyCondition,
} from './conditions.js';
import {
  applyProbeResults,
  containerStatuses,
  type ProbeView,
  type StartFailure,
} from './container-statuses.js';

export interface PodStatusInput {
  readonly pod: Pod;
  readonly runtime: PodRuntime;
  /** The status the kubelet reported last (else the API's): times and terminal states carry over. */
  readonly previous: PodStatus | undefined;
  readonly startFailures: ReadonlyMap<string, StartFailure>;
  readonly probes: ProbeView;
  readonly hostIPs: readonly string[];
  /** The pod's addresses (the node's for host-network pods); empty without a sandbox. */
  readonly podIPs: readonly string[];
  /** A ready sandbox with its network exists (no new one is needed). */
  readonly sandboxReady: boolean;
  /** The pod's containers will not run again (deleted, or finished). */
  readonly podIsTerminal: boolean;
  /** Set when the kubelet fails the pod itself (activeDeadlineSeconds). */
  readonly failure?: { readonly reason: string; readonly message: string };
  readonly now: Date;
}

const isTerminalPhase = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

function statusOf(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((status) => status.name === name);
}

export function podPhase(
  spec: PodSpec,
  statuses: readonly ContainerStatus[],
  podIsTerminal: boolean,
): string {
  let pendingInitialization = 0;
  let failedInitialization = 0;
  for (const container of spec.initContainers ?? []) {
    if (isRestartableInitContainer(container)) continue;
    const status = statusOf(statuses, container.name);
    const state = status?.state;
    if (!status || state?.running) pendingInitialization++;
    else if (state?.terminated) {
      if (state.terminated.exitCode !== 0) failedInitialization++;
    } else if (state?.waiting) {
      const last = status.lastState?.terminated;
      if (last) {
        if (last.exitCode !== 0) failedInitialization++;
      } else pendingInitialization++;
    } else pendingInitialization++;
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const container of spec.initContainers ?? []) {
    if (!isRestartableInitContainer(container)) continue;
    const status = statusOf(statuses, container.name);
    const state = status?.state;
    if (!status) unknown++;
    else if (state?.running) {
      if (!status.started) pendingInitialization++;
      running++;
    } else if (state?.terminated) {
      // Stopped sidecars do not count towards the phase.
    } else if (state?.waiting) {
      if (!status.lastState?.terminated) {
        pendingInitialization++;
        waiting++;
      }
    } else {
      pendingInitialization++;
      unknown++;
    }
  }
  for (const container of spec.containers) {
    const status = statusOf(statuses, container.name);
    const state = status?.state;
    if (!status) unknown++;
    else if (state?.running) running++;
    else if (state?.terminated) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if (state?.waiting) {
      if (status.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }

  if (failedInitialization > 0 && spec.restartPolicy === 'Never') return 'Failed';
  if ((pendingInitialization > 0 && !hasAnyRegularContainerStarted(spec, statuses)) || waiting > 0)
    return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (spec.restartPolicy === 'Always' || spec.restartPolicy === undefined) return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (spec.restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** A kubelet condition with the transition time of the previous one when its status is unchanged. */
function withTransitionTime(
  condition: Condition,
  previous: readonly PodCondition[],
  now: string,
): PodCondition {
  const before = previous.find((c) => c.type === condition.type);
  const lastTransitionTime =
    before && before.status === condition.status && before.lastTransitionTime
      ? before.lastTransitionTime
      : now;
  return {
    type: condition.type,
    status: condition.status,
    ...(condition.reason ? { reason: condition.reason } : {}),
    ...(condition.message ? { message: condition.message } : {}),
    lastTransitionTime,
  };
}

export function generatePodStatus(input: PodStatusInput): PodStatus {
  const { pod, runtime, startFailures, probes } = input;
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const apiStatus = pod.status ?? {};
  const previous = input.previous ?? apiStatus;
  const now = rfc3339(input.now.getTime());

  const containers = containerStatuses(
    pod,
    runtime,
    spec.containers,
    previous.containerStatuses,
    startFailures,
    false,
  );
  const initContainers = containerStatuses(
    pod,
    runtime,
    spec.initContainers ?? [],
    previous.initContainerStatuses,
    startFailures,
    true,
  );
  const ephemeralContainers = containerStatuses(
    pod,
    runtime,
    (spec.ephemeralContainers ?? []) as Container[],
    previous.ephemeralContainerStatuses,
    startFailures,
    false,
  );
  applyProbeResults(pod, containers, false, probes);
  applyProbeResults(pod, initContainers, true, probes);

  let phase = podPhase(spec, [...containers, ...initContainers], input.podIsTerminal);
  if (!isTerminalPhase(phase)) {
    if (isTerminalPhase(previous.phase)) phase = previous.phase!;
    else if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase!;
  }
  let reason: string | undefined;
  let message: string | undefined;
  if (phase === previous.phase) {
    reason = previous.reason || apiStatus.reason;
    message = previous.message || apiStatus.message;
  }
  if (input.failure) {
    phase = 'Failed';
    reason = input.failure.reason;
    message = input.failure.message;
  }
  if (isTerminalPhase(apiStatus.phase) && phase !== apiStatus.phase) phase = apiStatus.phase!;

  // Conditions others own stay as the API has them; the kubelet's follow, in its order.
  const owned = new Set<string>(KUBELET_CONDITIONS);
  const others = (apiStatus.conditions ?? []).filter((c) => !owned.has(c.type));
  const allStatuses = [...initContainers, ...containers];
  const previousConditions = [...(previous.conditions ?? []), ...(apiStatus.conditions ?? [])];
  const kubelet: Condition[] = [
    { type: 'PodReadyToStartContainers', status: input.sandboxReady ? 'True' : 'False' },
    initializedCondition(spec, allStatuses, phase),
    readyCondition(spec, others, allStatuses, phase),
    containersReadyCondition(spec, allStatuses, phase),
    { type: 'PodScheduled', status: 'True' },
  ];
  const conditions = [
    ...others,
    ...kubelet.map((condition) => withTransitionTime(condition, previousConditions, now)),
  ];

  const hostIPs = [...input.hostIPs];
  let podIPs = [...input.podIPs];
  if (pod.spec?.hostNetwork && podIPs.length === 0) podIPs = hostIPs.slice(0, 1);
  const status: PodStatus = {
    phase,
    conditions,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    ...(hostIPs.length > 0 ? { hostIP: hostIPs[0], hostIPs: hostIPs.map((ip) => ({ ip })) } : {}),
    ...(podIPs.length > 0 ? { podIP: podIPs[0], podIPs: podIPs.map((ip) => ({ ip })) } : {}),
    startTime: previous.startTime ?? apiStatus.startTime ?? now,
    qosClass: apiStatus.qosClass ?? podQos(pod),
    containerStatuses: containers,
    ...(spec.initContainers?.length ? { initContainerStatuses: initContainers } : {}),
    ...(spec.ephemeralContainers?.length ? { ephemeralContainerStatuses: ephemeralContainers } : {}),
  };
  if (!status.podIP && previous.podIP) {
    // A stopped sandbox leaves the pod's address in the status: finished pods keep showing it.
    status.podIP = previous.podIP;
    status.podIPs = previous.podIPs;
  }
  return status;
}
