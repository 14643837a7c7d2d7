// Server-side rollback (pkg/controller/deployment/rollback.go), asked for through the
// `deprecated.deployment.rollback.to` annotation that apps/v1 keeps of the old rollbackTo field:
// the Deployment takes the template and annotations of the ReplicaSet with that revision (0: the
// previous one). Modern kubectl rolls back on the client side instead, by patching the template.
import type { Deployment, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import {
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  lastRevision,
  POD_TEMPLATE_HASH_LABEL,
  ROLLBACK_DONE,
  ROLLBACK_REVISION_NOT_FOUND,
  ROLLBACK_TEMPLATE_UNCHANGED,
  revisionOf,
  setDeploymentAnnotationsTo,
} from './deployment-util.js';
import { replicaSetsAndSyncRevision, rollbackRevision } from './replica-sets.js';
import type { SyncContext } from './sync-context.js';
import { equalIgnoreHash } from './template-equality.js';

export async function rollback(ctx: SyncContext, deployment: Deployment, replicaSets: readonly ReplicaSet[]) {
  const { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, true);
  const allRSs = [...oldRSs, newRS];
  let revision = rollbackRevision(deployment) ?? 0n;
  if (revision === 0n) {
    revision = lastRevision(allRSs);
    if (revision === 0n) {
      ctx.recorder.event(deployment, 'Warning', ROLLBACK_REVISION_NOT_FOUND, 'Unable to find last revision.');
      await clearRollbackTo(ctx, deployment);
      return;
    }
  }
  const target = allRSs.find((rs) => rs !== undefined && revisionOf(rs) === revision);
  if (target === undefined) {
    ctx.recorder.event(
      deployment,
      'Warning',
      ROLLBACK_REVISION_NOT_FOUND,
      'Unable to find the revision to rollback to.',
    );
    await clearRollbackTo(ctx, deployment);
    return;
  }
  const name = deployment.metadata?.name;
  if (equalIgnoreHash(deployment.spec?.template ?? {}, target.spec?.template ?? {})) {
    const message = `The rollback revision contains the same template as current deployment "${name}"`;
    ctx.recorder.event(deployment, 'Warning', ROLLBACK_TEMPLATE_UNCHANGED, message);
    await clearRollbackTo(ctx, deployment);
    return;
  }
  const template = structuredClone(target.spec?.template ?? {});
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  template.metadata = { ...template.metadata, labels };
  deployment.spec = { ...deployment.spec!, template };
  // The annotations (change-cause ...) go back with the template, so they follow it to the new ReplicaSet.
  setDeploymentAnnotationsTo(deployment, target);
  await clearRollbackTo(ctx, deployment);
  ctx.recorder.event(
    deployment,
    'Normal',
    ROLLBACK_DONE,
    `Rolled back deployment "${name}" to revision ${revision}`,
  );
}

async function clearRollbackTo(ctx: SyncContext, deployment: Deployment): Promise<void> {
  delete deployment.metadata?.annotations?.[DEPRECATED_ROLLBACK_TO_ANNOTATION];
  await ctx.deployments.update(deployment);
}
