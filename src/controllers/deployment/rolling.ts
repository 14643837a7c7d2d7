// The RollingUpdate strategy (pkg/controller/deployment/rolling.go): grow the new ReplicaSet as far
// as maxSurge allows, shrink the old ones as far as maxUnavailable allows (unhealthy pods first),
// one step per sync, until the new ReplicaSet has every replica.
import type { Deployment, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import {
  activeReplicaSets,
  availableReplicaCount,
  byCreationTimestamp,
  deploymentComplete,
  maxUnavailable,
  newRSNewReplicas,
  replicaCount,
  specReplicas,
} from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  replicaSetsAndSyncRevision,
  scaleReplicaSetAndRecordEvent,
} from './replica-sets.js';
import type { SyncContext } from './sync-context.js';

export async function rolloutRolling(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): Promise<void> {
  const { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, true);
  const allRSs = [...oldRSs, newRS];
  if (await reconcileNewReplicaSet(ctx, allRSs, newRS!, deployment)) {
    await syncRolloutStatus(ctx, allRSs, newRS, deployment);
    return;
  }
  if (await reconcileOldReplicaSets(ctx, allRSs, activeReplicaSets(oldRSs), newRS!, deployment)) {
    await syncRolloutStatus(ctx, allRSs, newRS, deployment);
    return;
  }
  if (deploymentComplete(deployment, deployment.status ?? {}))
    await cleanupDeployment(ctx, oldRSs, deployment);
  await syncRolloutStatus(ctx, allRSs, newRS, deployment);
}

/** Scales the new ReplicaSet towards spec.replicas within the surge; true when it scaled. */
async function reconcileNewReplicaSet(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  const replicas = specReplicas(deployment);
  if (specReplicas(newRS) === replicas) return false;
  if (specReplicas(newRS) > replicas) {
    return (await scaleReplicaSetAndRecordEvent(ctx, newRS, replicas, deployment)).scaled;
  }
  const target = newRSNewReplicas(deployment, allRSs, newRS);
  return (await scaleReplicaSetAndRecordEvent(ctx, newRS, target, deployment)).scaled;
}

/**
 * Scales old ReplicaSets down as far as availability allows: by at most all pods minus the
 * minimum available minus the new ReplicaSet's unavailable pods (so new pods that never become
 * available do not eat the budget). True when anything scaled.
 */
async function reconcileOldReplicaSets(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  if (replicaCount(oldRSs) === 0) return false;
  const allPods = replicaCount(allRSs);
  const minAvailable = specReplicas(deployment) - maxUnavailable(deployment);
  const newUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  // Upstream goes on quietly when a step fails; the next sync retries.
  let cleaned: { oldRSs: ReplicaSet[]; count: number };
  try {
    cleaned = await cleanupUnhealthyReplicas(ctx, oldRSs, deployment, maxScaledDown);
  } catch {
    return false;
  }
  let scaledDown: number;
  try {
    scaledDown = await scaleDownOldReplicaSetsForRollingUpdate(
      ctx,
      [...cleaned.oldRSs, newRS],
      cleaned.oldRSs,
      deployment,
    );
  } catch {
    return false;
  }
  return cleaned.count + scaledDown > 0;
}

/** Scales old ReplicaSets down by their unavailable pods first (oldest ReplicaSets first). */
async function cleanupUnhealthyReplicas(
  ctx: SyncContext,
  oldRSs: ReplicaSet[],
  deployment: Deployment,
  maxCleanup: number,
): Promise<{ oldRSs: ReplicaSet[]; count: number }> {
  oldRSs.sort(byCreationTimestamp);
  let total = 0;
  for (const [index, rs] of oldRSs.entries()) {
    if (total >= maxCleanup) break;
    const replicas = specReplicas(rs);
    const available = rs.status?.availableReplicas ?? 0;
    if (replicas === 0 || replicas === available) continue;
    const count = Math.min(maxCleanup - total, replicas - available);
    const target = replicas - count;
    if (target > replicas) {
      throw new Error(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata?.namespace}/${rs.metadata?.name} ${replicas} -> ${target}`,
      );
    }
    const { rs: updated } = await scaleReplicaSetAndRecordEvent(ctx, rs, target, deployment);
    total += count;
    oldRSs[index] = updated;
  }
  return { oldRSs, count: total };
}

/** Scales old ReplicaSets down while more pods are available than the minimum (oldest first). */
async function scaleDownOldReplicaSetsForRollingUpdate(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  oldRSs: ReplicaSet[],
  deployment: Deployment,
): Promise<number> {
  const minAvailable = specReplicas(deployment) - maxUnavailable(deployment);
  const available = availableReplicaCount(allRSs);
  if (available <= minAvailable) return 0;
  oldRSs.sort(byCreationTimestamp);
  const budget = available - minAvailable;
  let total = 0;
  for (const rs of oldRSs) {
    if (total >= budget) break;
    const replicas = specReplicas(rs);
    if (replicas === 0) continue;
    const count = Math.min(replicas, budget - total);
    await scaleReplicaSetAndRecordEvent(ctx, rs, replicas - count, deployment);
    total += count;
  }
  return total;
}
