// The Recreate strategy (pkg/controller/deployment/recreate.go): scale every old ReplicaSet to
// zero, wait until none of their pods is left running, then create and scale up the new one.

import type { Deployment, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import {
  activeReplicaSets,
  actualReplicaCount,
  deploymentComplete,
  specReplicas,
} from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  replicaSetsAndSyncRevision,
  scaleReplicaSetAndRecordEvent,
} from './replica-sets.js';
import type { SyncContext } from './sync-context.js';

/** Pods of the Deployment by the UID of the ReplicaSet controlling them. */
export type PodsByReplicaSet = ReadonlyMap<string, readonly Pod[]>;

export async function rolloutRecreate(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
  podMap: PodsByReplicaSet,
): Promise<void> {
  // The new ReplicaSet is not created before the old ones are down.
  let { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, false);
  let allRSs = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) {
    if ((await scaleReplicaSetAndRecordEvent(ctx, rs, 0, deployment)).scaled) scaledDown = true;
  }
  if (scaledDown || oldPodsRunning(newRS, oldRSs, podMap)) {
    await syncRolloutStatus(ctx, allRSs, newRS, deployment);
    return;
  }
  if (newRS === undefined) {
    ({ newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, true));
    allRSs = [...oldRSs, newRS];
  }
  await scaleReplicaSetAndRecordEvent(ctx, newRS!, specReplicas(deployment), deployment);
  if (deploymentComplete(deployment, deployment.status ?? {}))
    await cleanupDeployment(ctx, oldRSs, deployment);
  await syncRolloutStatus(ctx, allRSs, newRS, deployment);
}

/** Whether an old ReplicaSet still reports pods, or any pod not of the new ReplicaSet has not finished. */
export function oldPodsRunning(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  podMap: PodsByReplicaSet,
): boolean {
  if (actualReplicaCount(oldRSs) > 0) return true;
  for (const [uid, pods] of podMap) {
    if (newRS !== undefined && newRS.metadata?.uid === uid) continue;
    // Unknown counts as running: the pod may still be up on a node out of touch.
    if (pods.some((pod) => pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}
