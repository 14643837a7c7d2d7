// Rollout progress (pkg/controller/deployment/progress.go): the Progressing condition says a
// rollout moves (ReplicaSetUpdated), finished (NewReplicaSetAvailable) or stalled past
// progressDeadlineSeconds (ProgressDeadlineExceeded); ReplicaSet failures surface as the
// Deployment's ReplicaFailure condition; a Deployment that may time out is looked at again then.
import type { Deployment, DeploymentCondition, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import {
  deploymentComplete,
  deploymentCondition,
  deploymentProgressing,
  deploymentTimedOut,
  hasProgressDeadline,
  NEW_RS_AVAILABLE_REASON,
  newDeploymentCondition,
  PROGRESSING,
  REPLICA_FAILURE,
  REPLICA_SET_UPDATED_REASON,
  removeDeploymentCondition,
  replicaSetToDeploymentCondition,
  setDeploymentCondition,
  TIMED_OUT_REASON,
} from './deployment-util.js';
import { calculateStatus, sameStatus, wireDeploymentStatus } from './replica-sets.js';
import { type SyncContext, updateDeploymentStatus } from './sync-context.js';

/** Failure conditions of the new ReplicaSet, or else of the old ones. */
function replicaFailures(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined) {
  const failuresOf = (rs: ReplicaSet | undefined): DeploymentCondition[] =>
    (rs?.status?.conditions ?? [])
      .filter((condition) => condition.type === REPLICA_FAILURE)
      .map(replicaSetToDeploymentCondition);
  const ofNew = failuresOf(newRS);
  return ofNew.length > 0 ? ofNew : allRSs.flatMap(failuresOf);
}

/** Writes the status with the rollout's progress, or schedules a deadline check when nothing changed. */
export async function syncRolloutStatus(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
): Promise<void> {
  const now = ctx.now();
  const status = calculateStatus(allRSs, newRS, deployment, now);
  if (!hasProgressDeadline(deployment)) removeDeploymentCondition(status, PROGRESSING);
  const current = deploymentCondition(deployment.status, PROGRESSING);
  const isCompleteDeployment =
    status.replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE_REASON;
  if (hasProgressDeadline(deployment) && !isCompleteDeployment) {
    const name = newRS?.metadata?.name;
    const subject = name !== undefined ? `ReplicaSet "${name}"` : `Deployment "${deployment.metadata?.name}"`;
    if (deploymentComplete(deployment, status)) {
      const message = `${subject} has successfully progressed.`;
      setDeploymentCondition(
        status,
        newDeploymentCondition(PROGRESSING, 'True', NEW_RS_AVAILABLE_REASON, message, now),
      );
    } else if (deploymentProgressing(deployment, status)) {
      const condition = newDeploymentCondition(
        PROGRESSING,
        'True',
        REPLICA_SET_UPDATED_REASON,
        `${subject} is progressing.`,
        now,
      );
      // Progress refreshes lastUpdateTime even with an unchanged reason; a True condition keeps
      // its lastTransitionTime.
      if (current !== undefined) {
        if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
        removeDeploymentCondition(status, PROGRESSING);
      }
      setDeploymentCondition(status, condition);
    } else if (deploymentTimedOut(deployment, status, now)) {
      const message = `${subject} has timed out progressing.`;
      setDeploymentCondition(
        status,
        newDeploymentCondition(PROGRESSING, 'False', TIMED_OUT_REASON, message, now),
      );
    }
  }
  const failures = replicaFailures(allRSs, newRS);
  if (failures.length > 0) setDeploymentCondition(status, failures[0]!);
  else removeDeploymentCondition(status, REPLICA_FAILURE);

  if (sameStatus(deployment.status, status)) {
    requeueStuckDeployment(ctx, deployment, status);
    return;
  }
  deployment.status = wireDeploymentStatus(status);
  await updateDeploymentStatus(ctx, deployment);
}

/**
 * A rollout with no sign of progress may be stuck: look again when its deadline passes (a second
 * later, against clock skew), or at once when it is about to. Returns the delay in ms, 0 for
 * "now", -1 when no check is needed.
 */
export function requeueStuckDeployment(
  ctx: SyncContext,
  deployment: Deployment,
  status: NonNullable<Deployment['status']>,
): number {
  const current = deploymentCondition(deployment.status, PROGRESSING);
  if (!hasProgressDeadline(deployment) || current === undefined) return -1;
  if (deploymentComplete(deployment, status) || current.reason === TIMED_OUT_REASON) return -1;
  const deadline =
    Date.parse(current.lastUpdateTime ?? '') + (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000;
  const after = deadline - ctx.now();
  if (after < 1000) {
    ctx.requeueRateLimited(deployment);
    return 0;
  }
  ctx.requeueAfter(deployment, after + 1000);
  return after;
}
