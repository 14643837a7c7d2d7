// Which pods count, and which to delete first (pkg/controller/controller_utils.go: IsPodActive,
// ActivePodsWithRanks; pkg/api/v1/pod: IsPodAvailable).
import { isPodReady, podCondition } from '../../api/pod-conditions.js';
import type { Pod } from '../../api/types/core-v1.generated.js';

/** Pods a controller may weigh deleting first by: `controller.kubernetes.io/pod-deletion-cost`. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** Not finished (Succeeded/Failed) and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

export function filterActivePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}

/** Ready for longer than minReadySeconds (any ready pod when it is 0). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = podCondition(pod.status, 'Ready')?.lastTransitionTime;
  return since !== undefined && Date.parse(since) + minReadySeconds * 1000 < nowMs;
}

// Unknown phases sort with Pending (a missing map entry is 0 in Go).
const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(pod: Pod): number {
  return PHASE_ORDINAL[pod.status?.phase ?? ''] ?? 0;
}

/** The deletion cost annotation as an int32; 0 when absent or malformed (as the comparison reads it). */
export function podDeletionCost(pod: Pod): number {
  const text = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (text === undefined || !/^[+-]?[0-9]+$/.test(text)) return 0;
  const value = Number(text);
  return value >= -(2 ** 31) && value <= 2 ** 31 - 1 ? value : 0;
}

/** When the pod became Ready, in ms since the epoch; undefined (Go's zero time) when it is not ready. */
function readySince(pod: Pod): number | undefined {
  const condition = podCondition(pod.status, 'Ready');
  if (condition?.status !== 'True' || condition.lastTransitionTime === undefined) return undefined;
  return Date.parse(condition.lastTransitionTime);
}

function creationTime(pod: Pod): number | undefined {
  const text = pod.metadata?.creationTimestamp;
  return text === undefined ? undefined : Date.parse(text);
}

/** afterOrZero: a zero time counts as after every other time. */
function afterOrZero(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === undefined;
  return a > b;
}

/** The difference of floor(log2(age in ns)) of two times, so pods of similar age tie (LogarithmicScaleDown). */
function logarithmicRankDiff(a: number, b: number, nowMs: number): number {
  const rank = (time: number): number => {
    const nanoseconds = (nowMs - time) * 1e6;
    return nanoseconds > 0 ? Math.trunc(Math.log2(nanoseconds)) : -1;
  };
  return rank(a) - rank(b);
}

/** Highest restart count of regular containers, and of restartable (sidecar) init containers. */
function maxRestarts(pod: Pod): { regular: number; sidecar: number } {
  let regular = 0;
  for (const status of pod.status?.containerStatuses ?? []) regular = Math.max(regular, status.restartCount);
  const sidecars = new Set(
    (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
  let sidecar = 0;
  for (const status of pod.status?.initContainerStatuses ?? []) {
    if (sidecars.has(status.name)) sidecar = Math.max(sidecar, status.restartCount);
  }
  return { regular, sidecar };
}

/** Orders by age, or by UID when the ages fall into the same power of two. */
function compareTimes(a: number | undefined, b: number | undefined, uids: [string, string], nowMs: number) {
  if (a === undefined || b === undefined) return afterOrZero(a, b);
  const diff = logarithmicRankDiff(a, b, nowMs);
  return diff === 0 ? uids[0] < uids[1] : diff < 0;
}

/**
 * ActivePodsWithRanks.Less: whether pod `a` (with rank `rankA`, the number of related pods on its
 * node) should be deleted before pod `b`. Unassigned < assigned; Pending < Unknown < Running; not
 * ready < ready; lower deletion cost < higher; more pods on the same node < fewer; ready for less
 * time < more; more restarts < fewer; newer < older.
 */
export function deleteBefore(a: Pod, rankA: number, b: Pod, rankB: number, nowMs: number): boolean {
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) < phaseOrdinal(b);
  if (isPodReady(a) !== isPodReady(b)) return !isPodReady(a);
  const costA = podDeletionCost(a);
  const costB = podDeletionCost(b);
  if (costA !== costB) return costA < costB;
  if (rankA !== rankB) return rankA > rankB;
  const uids: [string, string] = [a.metadata?.uid ?? '', b.metadata?.uid ?? ''];
  if (isPodReady(a) && isPodReady(b)) {
    const readyA = readySince(a);
    const readyB = readySince(b);
    if (readyA !== readyB) return compareTimes(readyA, readyB, uids, nowMs);
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA.regular !== restartsB.regular) return restartsA.regular > restartsB.regular;
  if (restartsA.sidecar !== restartsB.sidecar) return restartsA.sidecar > restartsB.sidecar;
  const createdA = creationTime(a);
  const createdB = creationTime(b);
  if (createdA !== createdB) return compareTimes(createdA, createdB, uids, nowMs);
  return false;
}

/** The pods sorted so that those to delete first come first (ranks are parallel to `pods`). */
export function sortPodsForDeletion(pods: readonly Pod[], ranks: readonly number[], nowMs: number): Pod[] {
  const order = pods.map((_, index) => index);
  order.sort((i, j) => {
    if (deleteBefore(pods[i]!, ranks[i]!, pods[j]!, ranks[j]!, nowMs)) return -1;
    if (deleteBefore(pods[j]!, ranks[j]!, pods[i]!, ranks[i]!, nowMs)) return 1;
    return 0;
  });
  return order.map((index) => pods[index]!);
}
