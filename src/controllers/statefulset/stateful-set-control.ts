// One pass of the StatefulSet update algorithm (updateStatefulSet in
// pkg/controller/statefulset/stateful_set_control.go): replace failed pods, create missing
// ordinals (with their claims), delete ordinals beyond the replica count highest first, then roll
// pods to the update revision from the highest ordinal down to the partition. OrderedReady waits
// for each pod to be Running and Ready (and available after minReadySeconds) before the next
// step; Parallel does not. Returns the status the pass leaves.
import { isPodReady } from '../../api/pod-conditions.js';
import type { StatefulSet, StatefulSetStatus } from '../../api/types/apps-v1.generated.js';
import type { Pod, PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import { isPodAvailable } from '../controller-utils/active-pods.js';
import { newStatefulSetPod, ordinalOf, replicasOf, revisionHashOf, startOrdinal } from './stateful-pods.js';

/** What the pass does to the cluster; the controller implements it against the API. */
export interface StatefulPodActions {
  /** Creates the ordinal's missing claims, then the pod. */
  createPod(pod: Pod, ordinal: number): Promise<void>;
  deletePod(pod: Pod): Promise<void>;
  /** A failed or succeeded pod is about to be deleted so that it is recreated (for the event). */
  recreating(pod: Pod): void;
  /** Sets the owner references of the pod's claims per the retention policy (condemned: being scaled away). */
  syncClaimOwners(pod: Pod, ordinal: number, condemned: boolean): Promise<void>;
}

export interface Revisions {
  readonly currentHash: string;
  readonly currentTemplate: PodTemplateSpec;
  readonly updateHash: string;
  readonly updateTemplate: PodTemplateSpec;
}

const isCreated = (pod: Pod): boolean => pod.metadata?.uid !== undefined;
const isTerminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined;
const isFailed = (pod: Pod): boolean => pod.status?.phase === 'Failed';
const isSucceeded = (pod: Pod): boolean => pod.status?.phase === 'Succeeded';
const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
const isHealthy = (pod: Pod): boolean => isRunningAndReady(pod) && !isTerminating(pod);

export async function updateStatefulSet(
  set: StatefulSet,
  revisions: Revisions,
  pods: readonly Pod[],
  actions: StatefulPodActions,
  nowMs: number,
): Promise<StatefulSetStatus> {
  const name = set.metadata?.name ?? '';
  const start = startOrdinal(set);
  const count = replicasOf(set);
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  const monotonic = (set.spec?.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const available = (pod: Pod): boolean => isPodAvailable(pod, minReadySeconds, nowMs);

  const replicas: (Pod | undefined)[] = new Array(count).fill(undefined);
  const condemned: Pod[] = [];
  for (const pod of pods) {
    const ordinal = ordinalOf(pod, name);
    if (ordinal < 0) continue;
    if (ordinal >= start && ordinal < start + count) replicas[ordinal - start] = pod;
    else condemned.push(pod);
  }
  condemned.sort((a, b) => ordinalOf(b, name) - ordinalOf(a, name));

  const status: StatefulSetStatus = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision: revisions.currentHash,
    updateRevision: revisions.updateHash,
    observedGeneration: set.metadata?.generation ?? 0,
    ...(set.status?.collisionCount !== undefined ? { collisionCount: set.status.collisionCount } : {}),
  };
  for (const pod of [...replicas, ...condemned]) {
    if (pod === undefined || !isCreated(pod)) continue;
    status.replicas++;
    if (isRunningAndReady(pod)) {
      status.readyReplicas = (status.readyReplicas ?? 0) + 1;
      if (available(pod)) status.availableReplicas = (status.availableReplicas ?? 0) + 1;
    }
    if (isTerminating(pod)) continue;
    const hash = revisionHashOf(pod);
    if (hash === revisions.currentHash) status.currentReplicas = (status.currentReplicas ?? 0) + 1;
    if (hash === revisions.updateHash) status.updatedReplicas = (status.updatedReplicas ?? 0) + 1;
  }

  // A missing ordinal below the partition is recreated at the current revision.
  const rollingUpdate = set.spec?.updateStrategy?.rollingUpdate;
  const currentBelow =
    rollingUpdate === undefined ? start + (set.status?.currentReplicas ?? 0) : start + partition;
  const fresh = (ordinal: number): Pod =>
    rolling && ordinal < currentBelow
      ? newStatefulSetPod(set, revisions.currentTemplate, revisions.currentHash, ordinal)
      : newStatefulSetPod(set, revisions.updateTemplate, revisions.updateHash, ordinal);

  for (let i = 0; i < count; i++) {
    const ordinal = start + i;
    let pod = replicas[i];
    if (pod !== undefined && (isFailed(pod) || isSucceeded(pod))) {
      if (!isTerminating(pod)) {
        actions.recreating(pod);
        await actions.deletePod(pod);
      }
      // Replaced once the deletion is observed.
      if (monotonic) return status;
      continue;
    }
    if (pod === undefined) {
      pod = fresh(ordinal);
      await actions.createPod(pod, ordinal);
      if (monotonic) return status;
      continue;
    }
    if (!isTerminating(pod)) await actions.syncClaimOwners(pod, ordinal, false);
    if (!monotonic) continue;
    if (isTerminating(pod)) return status;
    if (!isRunningAndReady(pod)) return status;
    if (!available(pod)) return status;
  }

  // The lowest-ordinal unhealthy condemned pod may go even while unhealthy.
  const firstUnhealthy = [...condemned].reverse().find((pod) => !isHealthy(pod));
  for (const pod of condemned) {
    if (isTerminating(pod)) {
      if (monotonic) return status;
      continue;
    }
    if (monotonic && (!isRunningAndReady(pod) || !available(pod)) && pod !== firstUnhealthy) return status;
    await actions.syncClaimOwners(pod, ordinalOf(pod, name), true);
    await actions.deletePod(pod);
    if (monotonic) return status;
  }

  if (!rolling) return status;
  // Highest ordinal first, down to the partition, one unavailable pod at a time: maxUnavailable is
  // behind the alpha MaxUnavailableStatefulSet gate (off in 1.33), and the apiserver drops it.
  const maxUnavailable = 1;
  let unavailable = 0;
  for (const pod of replicas) if (pod === undefined || !isHealthy(pod) || !available(pod)) unavailable++;
  const updateMin = Math.max(0, partition - start);
  for (let target = count - 1; target >= updateMin && unavailable < maxUnavailable; target--) {
    const pod = replicas[target];
    if (pod === undefined || isTerminating(pod) || revisionHashOf(pod) === revisions.updateHash) continue;
    await actions.deletePod(pod);
    unavailable++;
  }
  return status;
}

/** completeRollingUpdate: once every pod runs the update revision and is ready, it becomes current. */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): StatefulSetStatus {
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  if (
    rolling &&
    status.updatedReplicas === status.replicas &&
    status.readyReplicas === status.replicas &&
    status.replicas === replicasOf(set)
  ) {
    return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
  }
  return status;
}
