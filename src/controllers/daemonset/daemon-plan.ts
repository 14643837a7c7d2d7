// What a DaemonSet sync should do, as pure decisions (manage and rollingUpdate in
// pkg/controller/daemon/daemon_controller.go and update.go): the nodes to start a pod on and the
// pods to delete, and the status counted from the pods on each node.

import { isPodReady } from '../../api/pod-conditions.js';
import type { DaemonSet, DaemonSetStatus } from '../../api/types/apps-v1.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { isPodAvailable } from '../controller-utils/active-pods.js';
import { scaledValue } from '../deployment/deployment-util.js';
import { byCreationThenPhase, isPodUpdated, type NodePlacement } from './daemon-pods.js';

export interface NodeState {
  readonly name: string;
  readonly placement: NodePlacement;
}

export interface SyncPlan {
  readonly createOn: string[];
  readonly remove: Pod[];
  /** The failed pods among `remove` (deleted subject to the failed-pods backoff). */
  readonly failed?: Pod[];
}

const deleting = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined;

/** util.AllowsSurge: a RollingUpdate whose maxSurge scales to more than zero. */
export function surgeAllowed(daemonSet: DaemonSet): boolean {
  const rolling = daemonSet.spec?.updateStrategy;
  if ((rolling?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
  return scaledValue(rolling?.rollingUpdate?.maxSurge ?? 0, 1, true) > 0;
}

/**
 * podsShouldBeOnNode for every node: start a pod where one should run and none does; delete
 * failed pods, extra copies (keeping the oldest; with surge, the oldest updated and oldest old,
 * dropping the old one once the updated one is available), pods on nodes that should not keep
 * them, and pods whose node is gone.
 */
export function planManage(
  daemonSet: DaemonSet,
  nodes: readonly NodeState[],
  podsByNode: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
): SyncPlan {
  const createOn: string[] = [];
  const remove: Pod[] = [];
  const failed: Pod[] = [];
  const minReadySeconds = daemonSet.spec?.minReadySeconds ?? 0;
  const known = new Set(nodes.map((node) => node.name));
  for (const node of nodes) {
    const pods = podsByNode.get(node.name) ?? [];
    const { shouldRun, shouldContinueRunning } = node.placement;
    if (shouldRun && pods.length === 0) {
      createOn.push(node.name);
      continue;
    }
    if (!shouldContinueRunning) {
      for (const pod of pods) if (!deleting(pod)) remove.push(pod);
      continue;
    }
    const running: Pod[] = [];
    for (const pod of pods) {
      if (deleting(pod)) continue;
      if (pod.status?.phase === 'Failed') {
        remove.push(pod);
        failed.push(pod);
      } else running.push(pod);
    }
    if (running.length <= 1) continue;
    running.sort(byCreationThenPhase);
    if (surgeAllowed(daemonSet)) {
      let oldestNew: Pod | undefined;
      let oldestOld: Pod | undefined;
      for (const pod of running) {
        if (isPodUpdated(pod, hash)) {
          if (oldestNew === undefined) oldestNew = pod;
          else remove.push(pod);
        } else if (oldestOld === undefined) oldestOld = pod;
        else remove.push(pod);
      }
      if (
        oldestNew !== undefined &&
        oldestOld !== undefined &&
        isPodAvailable(oldestNew, minReadySeconds, nowMs)
      ) {
        remove.push(oldestOld);
      }
    } else {
      remove.push(...running.slice(1));
    }
  }
  for (const [nodeName, pods] of podsByNode) {
    if (known.has(nodeName)) continue;
    for (const pod of pods) if (!deleting(pod)) remove.push(pod);
  }
  return { createOn, remove, failed };
}

/** The one updated and one old pod on a node, or `ok: false` when there are more (findUpdatedPodsOnNode). */
function updatedAndOld(pods: readonly Pod[], hash: string): { ok: boolean; updated?: Pod; old?: Pod } {
  let updated: Pod | undefined;
  let old: Pod | undefined;
  for (const pod of pods) {
    if (deleting(pod)) continue;
    if (isPodUpdated(pod, hash)) {
      if (updated !== undefined) return { ok: false };
      updated = pod;
    } else {
      if (old !== undefined) return { ok: false };
      old = pod;
    }
  }
  return { ok: true, ...(updated ? { updated } : {}), ...(old ? { old } : {}) };
}

/** maxSurge and maxUnavailable scaled to the desired count, rounded up; both zero means one unavailable. */
export function updateBudgets(
  daemonSet: DaemonSet,
  desired: number,
): { maxSurge: number; maxUnavailable: number } {
  const rolling = daemonSet.spec?.updateStrategy?.rollingUpdate;
  const maxSurge = scaledValue(rolling?.maxSurge ?? 0, desired, true);
  let maxUnavailable = scaledValue(rolling?.maxUnavailable ?? 1, desired, true);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/**
 * rollingUpdate: without surge, delete old pods while at most maxUnavailable nodes lack an
 * available pod (old pods that are not available go at once); with surge, start updated pods
 * beside old ones on at most maxSurge nodes at a time and delete the old pod once its
 * replacement is available.
 */
export function planRollingUpdate(
  daemonSet: DaemonSet,
  nodes: readonly NodeState[],
  podsByNode: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
): SyncPlan {
  const minReadySeconds = daemonSet.spec?.minReadySeconds ?? 0;
  const desired = nodes.filter((node) => node.placement.shouldRun).length;
  const { maxSurge, maxUnavailable } = updateBudgets(daemonSet, desired);
  const available = (pod: Pod): boolean => isPodAvailable(pod, minReadySeconds, nowMs);
  const shouldRun = new Map(nodes.map((node) => [node.name, node.placement.shouldRun]));
  if (maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: Pod[] = [];
    const candidates: Pod[] = [];
    for (const [, pods] of podsByNode) {
      const { ok, updated, old } = updatedAndOld(pods, hash);
      if (!ok || (updated === undefined) === (old === undefined)) {
        unavailable++;
        continue;
      }
      if (updated !== undefined) {
        if (!available(updated)) unavailable++;
        continue;
      }
      if (old === undefined) continue;
      if (!available(old)) {
        replaceNow.push(old);
        unavailable++;
      } else if (unavailable < maxUnavailable) candidates.push(old);
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { createOn: [], remove: [...replaceNow, ...candidates.slice(0, remaining)] };
  }
  let surging = 0;
  const createNow: string[] = [];
  const candidateNodes: string[] = [];
  const remove: Pod[] = [];
  for (const [nodeName, pods] of podsByNode) {
    const { ok, updated, old } = updatedAndOld(pods, hash);
    if (!ok) {
      surging++;
      continue;
    }
    if (old === undefined) continue;
    if (updated === undefined) {
      if (shouldRun.get(nodeName) !== true) continue;
      if (!available(old)) createNow.push(nodeName);
      else if (surging < maxSurge) candidateNodes.push(nodeName);
      continue;
    }
    if (!available(updated)) surging++;
    else remove.push(old);
  }
  const remaining = Math.min(Math.max(0, maxSurge - surging), candidateNodes.length);
  return { createOn: [...createNow, ...candidateNodes.slice(0, remaining)], remove };
}

/** updateDaemonSetStatus: counted over the oldest pod of each node. */
export function daemonSetStatus(
  daemonSet: DaemonSet,
  nodes: readonly NodeState[],
  podsByNode: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
): DaemonSetStatus {
  const minReadySeconds = daemonSet.spec?.minReadySeconds ?? 0;
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let availableCount = 0;
  let updated = 0;
  for (const node of nodes) {
    const pods = podsByNode.get(node.name) ?? [];
    if (!node.placement.shouldRun) {
      if (pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    if (pods.length === 0) continue;
    current++;
    const pod = [...pods].sort(byCreationThenPhase)[0]!;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) availableCount++;
    }
    if (isPodUpdated(pod, hash)) updated++;
  }
  const status = daemonSet.status;
  return {
    ...(status?.collisionCount !== undefined ? { collisionCount: status.collisionCount } : {}),
    ...(status?.conditions ? { conditions: status.conditions } : {}),
    currentNumberScheduled: current,
    desiredNumberScheduled: desired,
    numberAvailable: availableCount,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    numberUnavailable: desired - availableCount,
    observedGeneration: daemonSet.metadata?.generation ?? 0,
    updatedNumberScheduled: updated,
  };
}
