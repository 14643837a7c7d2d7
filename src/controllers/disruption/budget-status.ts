// The arithmetic of a budget's status (pkg/controller/disruption): which evicted pods still count
// as about to go, how many selected pods are healthy, and how many disruptions that allows.
import { isPodReady } from '../../api/pod-conditions.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../../api/types/policy-v1.generated.js';

/**
 * DeletionTimeout: how long a pod the eviction subresource let go may stay in
 * status.disruptedPods without being marked for deletion before it counts again.
 */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export interface DisruptedPodMap {
  /** Pod name → the eviction's time (metav1.Time), for pods still expected to be deleted. */
  readonly disruptedPods: Record<string, string>;
  /** When the earliest entry expires: the budget is synced again then. */
  readonly recheckAtMs?: number;
  /** Pods whose entry expired without a deletion (upstream tells them in a NotDeleted event). */
  readonly notDeleted: readonly Pod[];
}

/**
 * buildDisruptedPodMap: keeps the entries of selected pods not yet marked for deletion whose
 * timeout has not passed; entries of other pods are dropped.
 */
export function buildDisruptedPodMap(
  pods: readonly Pod[],
  pdb: PodDisruptionBudget,
  nowMs: number,
): DisruptedPodMap {
  const previous = pdb.status?.disruptedPods;
  const disruptedPods: Record<string, string> = {};
  const notDeleted: Pod[] = [];
  let recheckAtMs: number | undefined;
  if (!previous) return { disruptedPods, notDeleted };
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    if (!Object.hasOwn(previous, name)) continue;
    const disruptedAt = previous[name]!;
    const expectedDeletion = Date.parse(disruptedAt) + DELETION_TIMEOUT_MS;
    if (expectedDeletion < nowMs) {
      notDeleted.push(pod);
      continue;
    }
    if (recheckAtMs === undefined || expectedDeletion < recheckAtMs) recheckAtMs = expectedDeletion;
    disruptedPods[name] = disruptedAt;
  }
  return { disruptedPods, notDeleted, ...(recheckAtMs === undefined ? {} : { recheckAtMs }) };
}

/** countHealthyPods: Ready pods neither being deleted nor recently evicted. */
export function countHealthyPods(
  pods: readonly Pod[],
  disruptedPods: Readonly<Record<string, string>>,
  nowMs: number,
): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const disruptedAt = disruptedPods[pod.metadata?.name ?? ''];
    if (disruptedAt !== undefined && Date.parse(disruptedAt) + DELETION_TIMEOUT_MS > nowMs) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/**
 * Disruptions allowed: the healthy pods above the desired number, and none while the budget
 * expects no pods (so a budget whose first pods appear before its next sync is safe).
 */
export function disruptionsAllowed(
  currentHealthy: number,
  desiredHealthy: number,
  expectedCount: number,
): number {
  const allowed = currentHealthy - desiredHealthy;
  return expectedCount <= 0 || allowed <= 0 ? 0 : allowed;
}
