// The status a kubelet reports for a pod whose containers run — or have exited for good — on a
// fake node: the kubelet's conditions in its order after the conditions others own, container
// statuses sorted by name (init containers in spec order), and times carried over from the last
// report wherever nothing changed, so a second report of an unchanged pod is identical.
import { createHash } from 'node:crypto';
import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodStatus,
} from '../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';
import { normalizeImageReference } from '../docker/image-reference.js';

/** The scheme of the fake runtime's container and image IDs (real ones say `containerd://`). */
export const FAKE_RUNTIME_SCHEME = 'fake://';

/** The conditions the kubelet owns, in the order it writes them. */
const KUBELET_CONDITIONS = [
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
] as const;
const KUBELET_OWNED: ReadonlySet<string> = new Set(KUBELET_CONDITIONS);

export interface FakePodInputs {
  /** The pod's address (the node's for host-network pods). */
  readonly podIP: string;
  readonly hostIP: string;
  readonly now: Date;
  /** Set once every container has exited for good: the code they exited with. */
  readonly exitCode?: number;
}

/** A container ID for one run of a pod's container: a new one after each restart. */
export function fakeContainerId(podUid: string, container: string, restartCount: number): string {
  const digest = createHash('sha256').update(`${podUid}/${container}/${restartCount}`).digest('hex');
  return `${FAKE_RUNTIME_SCHEME}${digest}`;
}

/** The pod's phase once its containers exited with `exitCode` for good. */
export function terminalPhase(exitCode: number): 'Succeeded' | 'Failed' {
  return exitCode === 0 ? 'Succeeded' : 'Failed';
}

/** The whole status the kubelet would report now (qosClass and fields others own are kept). */
export function fakePodStatus(pod: Pod, inputs: FakePodInputs): PodStatus {
  const old = pod.status ?? {};
  const now = rfc3339(inputs.now.getTime());
  const phase = inputs.exitCode === undefined ? 'Running' : terminalPhase(inputs.exitCode);
  const uid = pod.metadata?.uid ?? '';
  const initContainerStatuses = (pod.spec?.initContainers ?? []).map((container) =>
    initContainerStatus(uid, container, findStatus(old.initContainerStatuses, container.name), now, inputs),
  );
  const containerStatuses = [...(pod.spec?.containers ?? [])]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((container) =>
      containerStatus(
        uid,
        container,
        findStatus(old.containerStatuses, container.name),
        now,
        inputs.exitCode,
      ),
    );
  const status: PodStatus = {
    ...old,
    phase,
    conditions: podConditions(pod, phase, now),
    hostIP: inputs.hostIP,
    hostIPs: [{ ip: inputs.hostIP }],
    podIP: inputs.podIP,
    podIPs: [{ ip: inputs.podIP }],
    startTime: old.startTime ?? now,
    containerStatuses,
  };
  if (initContainerStatuses.length > 0) status.initContainerStatuses = initContainerStatuses;
  return status;
}

/**
 * A strategic merge patch from the pod's current status to `status`, as the kubelet's status
 * manager sends it: the pod's uid, the fields it reports, the conditions that changed, and the
 * order of all conditions.
 */
export function podStatusPatch(pod: Pod, status: PodStatus): Record<string, unknown> {
  const before = pod.status?.conditions ?? [];
  const conditions = (status.conditions ?? []).flatMap((condition) => {
    const previous = before.find((candidate) => candidate.type === condition.type);
    if (previous && sameCondition(previous, condition)) return [];
    // null clears the field in a merge: only a new condition carries metav1.Time's empty value.
    return [previous ? condition : { ...condition, lastProbeTime: null }];
  });
  const patch: Record<string, unknown> = {
    '$setElementOrder/conditions': (status.conditions ?? []).map(({ type }) => ({ type })),
    phase: status.phase,
    hostIP: status.hostIP,
    hostIPs: status.hostIPs,
    podIP: status.podIP,
    podIPs: status.podIPs,
    startTime: status.startTime,
    containerStatuses: status.containerStatuses,
  };
  if (conditions.length > 0) patch.conditions = conditions;
  if (status.initContainerStatuses) patch.initContainerStatuses = status.initContainerStatuses;
  return { metadata: { uid: pod.metadata?.uid }, status: patch };
}

/** Whether the pod already shows what `desired` reports (ignoring times that only the report sets). */
export function reportsSameStatus(current: PodStatus | undefined, desired: PodStatus): boolean {
  return current !== undefined && JSON.stringify(summary(current)) === JSON.stringify(summary(desired));
}

function summary(status: PodStatus): unknown {
  const containers = (statuses: ContainerStatus[] | undefined) =>
    (statuses ?? []).map((s) => [
      s.name,
      s.image,
      s.containerID,
      s.ready,
      s.started,
      s.restartCount,
      stateOf(s),
    ]);
  const conditions = (status.conditions ?? [])
    .map((c) => [c.type, c.status, c.reason ?? '', c.message ?? ''])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  return [
    status.phase,
    status.podIP,
    status.hostIP,
    status.startTime,
    containers(status.initContainerStatuses),
    containers(status.containerStatuses),
    conditions,
  ];
}

function stateOf(status: ContainerStatus): string {
  if (status.state?.running) return 'running';
  if (status.state?.terminated) return `terminated:${status.state.terminated.exitCode}`;
  return 'waiting';
}

function findStatus(statuses: ContainerStatus[] | undefined, name: string): ContainerStatus | undefined {
  return statuses?.find((status) => status.name === name);
}

function sameCondition(a: PodCondition, b: PodCondition): boolean {
  return (
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}

/** Fields every container status shares, in the order Kubernetes serializes them. */
function baseStatus(
  container: Container,
  state: ContainerState,
  lastState: ContainerState,
  ready: boolean,
  restartCount: number,
  containerID: string,
  started: boolean,
): ContainerStatus {
  const image = normalizeImageReference(container.image ?? '');
  const status: ContainerStatus = {
    name: container.name,
    state,
    lastState,
    ready,
    restartCount,
    image,
    imageID: `${FAKE_RUNTIME_SCHEME}${image}`,
    containerID,
    started,
  };
  const { requests, limits } = container.resources ?? {};
  if (requests || limits) status.resources = { ...(limits && { limits }), ...(requests && { requests }) };
  const mounts = (container.volumeMounts ?? []).map((mount) => ({
    name: mount.name,
    mountPath: mount.mountPath,
    ...(mount.readOnly && { readOnly: true, recursiveReadOnly: 'Disabled' }),
  }));
  if (mounts.length > 0) status.volumeMounts = mounts;
  return status;
}

/**
 * A regular container: running since it started, or exited with `exitCode`. A changed image (an
 * in-place update) restarts it, as the kubelet does: one more restart, the old run in lastState.
 */
function containerStatus(
  uid: string,
  container: Container,
  previous: ContainerStatus | undefined,
  now: string,
  exitCode: number | undefined,
): ContainerStatus {
  let restartCount = previous?.restartCount ?? 0;
  let lastState: ContainerState = previous?.lastState ?? {};
  let startedAt = previous?.state?.running?.startedAt ?? previous?.state?.terminated?.startedAt ?? now;
  const running = previous?.state?.running;
  if (running && previous.image !== normalizeImageReference(container.image ?? '')) {
    lastState = {
      terminated: {
        exitCode: 0,
        reason: 'Completed',
        startedAt: running.startedAt,
        finishedAt: now,
        containerID: previous.containerID,
      },
    };
    restartCount += 1;
    startedAt = now;
  }
  const containerID = fakeContainerId(uid, container.name, restartCount);
  if (exitCode === undefined) {
    return baseStatus(
      container,
      { running: { startedAt } },
      lastState,
      true,
      restartCount,
      containerID,
      true,
    );
  }
  const terminated = {
    exitCode,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    startedAt,
    finishedAt: previous?.state?.terminated?.finishedAt ?? now,
    containerID,
  };
  return baseStatus(container, { terminated }, lastState, false, restartCount, containerID, false);
}

/** An init container: completed at once; a sidecar (restartPolicy Always) runs like the others. */
function initContainerStatus(
  uid: string,
  container: Container,
  previous: ContainerStatus | undefined,
  now: string,
  inputs: FakePodInputs,
): ContainerStatus {
  if (container.restartPolicy === 'Always') {
    return containerStatus(uid, container, previous, now, inputs.exitCode);
  }
  const containerID = fakeContainerId(uid, container.name, 0);
  const done = previous?.state?.terminated;
  const terminated = {
    exitCode: 0,
    reason: 'Completed',
    startedAt: done?.startedAt ?? now,
    finishedAt: done?.finishedAt ?? now,
    containerID,
  };
  return baseStatus(container, { terminated }, {}, true, 0, containerID, false);
}

/** Conditions others own first (readiness gates, DisruptionTarget), then the kubelet's. */
function podConditions(pod: Pod, phase: string, now: string): PodCondition[] {
  const old = pod.status?.conditions ?? [];
  const others = old.filter((condition) => !KUBELET_OWNED.has(condition.type));
  const terminalReason = phase === 'Succeeded' ? 'PodCompleted' : phase === 'Failed' ? 'PodFailed' : '';
  const containersReady: Omit<PodCondition, 'type'> = terminalReason
    ? { status: 'False', reason: terminalReason }
    : { status: 'True' };
  const wanted: Record<(typeof KUBELET_CONDITIONS)[number], Omit<PodCondition, 'type'>> = {
    // The sandbox is torn down once the pod is terminal.
    PodReadyToStartContainers: { status: terminalReason ? 'False' : 'True' },
    Initialized: phase === 'Succeeded' ? { status: 'True', reason: 'PodCompleted' } : { status: 'True' },
    Ready: terminalReason ? containersReady : readinessGates(pod, others),
    ContainersReady: containersReady,
    PodScheduled: { status: 'True' },
  };
  const kubelet = KUBELET_CONDITIONS.map((type): PodCondition => {
    const previous = old.find((condition) => condition.type === type);
    const condition = wanted[type];
    const lastTransitionTime =
      previous && previous.status === condition.status ? (previous.lastTransitionTime ?? now) : now;
    return { type, status: condition.status, lastTransitionTime, ...withText(condition) };
  });
  return [...others, ...kubelet];
}

function withText(condition: Omit<PodCondition, 'type'>): Partial<PodCondition> {
  return {
    ...(condition.reason && { reason: condition.reason }),
    ...(condition.message && { message: condition.message }),
  };
}

/** Ready when every readiness gate's condition is True (the containers always are, here). */
function readinessGates(pod: Pod, conditions: readonly PodCondition[]): Omit<PodCondition, 'type'> {
  const unready = (pod.spec?.readinessGates ?? []).flatMap(({ conditionType }) => {
    const condition = conditions.find((candidate) => candidate.type === conditionType);
    if (!condition)
      return [`corresponding condition of pod readiness gate "${conditionType}" does not exist.`];
    if (condition.status !== 'True') {
      return [`the status of pod readiness gate "${conditionType}" is not "True", but ${condition.status}`];
    }
    return [];
  });
  if (unready.length === 0) return { status: 'True' };
  return { status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') };
}
