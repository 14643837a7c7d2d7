// Reconciling a Deployment's ReplicaSets (pkg/controller/deployment/sync.go): finding or creating
// the new ReplicaSet (named after the template hash) and keeping revisions in step, scaling
// proportionally, pruning old ReplicaSets beyond revisionHistoryLimit, and the status.
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import { hasStatusCause, isAlreadyExists, isNotFound } from '../../client/rest/index.js';
import { newControllerRef } from '../controller-utils/owner-references.js';
import { messageOf, NAMESPACE_TERMINATING_CAUSE } from '../controller-utils/pod-control.js';
import {
  AVAILABLE,
  activeReplicaSets,
  actualReplicaCount,
  availableReplicaCount,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  deploymentCondition,
  desiredReplicasAnnotation,
  FAILED_RS_CREATE_REASON,
  FOUND_NEW_RS_REASON,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isRollingUpdate,
  isSaturated,
  MINIMUM_REPLICAS_AVAILABLE,
  MINIMUM_REPLICAS_UNAVAILABLE,
  maxRevision,
  maxSurge,
  maxUnavailable,
  NEW_REPLICA_SET_REASON,
  newDeploymentCondition,
  newRSNewReplicas,
  nextRevision,
  PAUSED_DEPLOY_REASON,
  POD_TEMPLATE_HASH_LABEL,
  PROGRESSING,
  parseInt64,
  proportion,
  RESUMED_DEPLOY_REASON,
  REVISION_ANNOTATION,
  readyReplicaCount,
  replicaCount,
  replicasAnnotationsNeedUpdate,
  setDeploymentCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specReplicas,
  statusOf,
  TIMED_OUT_REASON,
} from './deployment-util.js';
import { computePodTemplateHash } from './pod-template-hash.js';
import { DEPLOYMENT_KIND, type SyncContext, updateDeploymentStatus } from './sync-context.js';
import { equalIgnoreHash } from './template-equality.js';

export interface ReplicaSetsOfDeployment {
  readonly newRS: ReplicaSet | undefined;
  /** Every other ReplicaSet of the Deployment, scaled to zero or not. */
  readonly oldRSs: ReplicaSet[];
}

/**
 * The new and old ReplicaSets, with the new one's revision raised above the old ones' and copied
 * to the Deployment; creates the new ReplicaSet when asked to and it does not exist.
 */
export async function replicaSetsAndSyncRevision(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
  createIfMissing: boolean,
): Promise<ReplicaSetsOfDeployment> {
  const oldRSs = findOldReplicaSets(deployment, replicaSets);
  const newRS = await newReplicaSet(ctx, deployment, replicaSets, oldRSs, createIfMissing);
  return { newRS, oldRSs };
}

/** matchLabels of the selector plus one label (CloneSelectorAndAddLabel). */
function selectorWithLabel(deployment: Deployment, key: string, value: string) {
  const selector = structuredClone(deployment.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [key]: value };
  return selector;
}

async function newReplicaSet(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  createIfMissing: boolean,
): Promise<ReplicaSet | undefined> {
  const existing = findNewReplicaSet(deployment, replicaSets);
  const newRevision = nextRevision(maxRevision(oldRSs));
  if (existing !== undefined) {
    const copy = structuredClone(existing);
    const annotationsUpdated = setNewReplicaSetAnnotations(deployment, copy, newRevision, true);
    const minReadySeconds = deployment.spec?.minReadySeconds ?? 0;
    if (annotationsUpdated || (copy.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
      copy.spec = { ...copy.spec!, minReadySeconds };
      if (minReadySeconds === 0) delete copy.spec.minReadySeconds;
      return ctx.replicaSets.update(copy);
    }
    // The revision the ReplicaSet carries was set earlier and is the one to trust.
    let needsUpdate = setDeploymentRevision(
      deployment,
      copy.metadata?.annotations?.[REVISION_ANNOTATION] ?? '',
    );
    // Progress is estimated from the first time the new ReplicaSet was noticed.
    if (
      hasProgressDeadline(deployment) &&
      deploymentCondition(deployment.status, PROGRESSING) === undefined
    ) {
      const message = `Found new replica set "${copy.metadata?.name}"`;
      setDeploymentCondition(
        statusOf(deployment),
        newDeploymentCondition(PROGRESSING, 'True', FOUND_NEW_RS_REASON, message, ctx.now()),
      );
      needsUpdate = true;
    }
    if (needsUpdate) await updateDeploymentStatus(ctx, deployment);
    return copy;
  }
  if (!createIfMissing) return undefined;

  const template = structuredClone(deployment.spec?.template ?? {});
  const hash = computePodTemplateHash(template, deployment.status?.collisionCount);
  const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  template.metadata = { ...template.metadata, labels };
  const namespace = deployment.metadata?.namespace ?? '';
  const name = `${deployment.metadata?.name}-${hash}`;
  const minReadySeconds = deployment.spec?.minReadySeconds ?? 0;
  const created: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace,
      labels: { ...labels },
      ownerReferences: [newControllerRef(deployment, DEPLOYMENT_KIND)],
    },
    spec: {
      replicas: 0,
      ...(minReadySeconds ? { minReadySeconds } : {}),
      selector: selectorWithLabel(deployment, POD_TEMPLATE_HASH_LABEL, hash),
      template,
    },
  };
  const replicas = newRSNewReplicas(deployment, [...oldRSs, created], created);
  created.spec!.replicas = replicas;
  setNewReplicaSetAnnotations(deployment, created, newRevision, false);

  let result: ReplicaSet;
  let alreadyExists = false;
  try {
    result = await ctx.replicaSets.create(created);
  } catch (error) {
    if (isAlreadyExists(error)) {
      alreadyExists = true;
      // A slow cache, or a hash collision: the same name with another template.
      const found = ctx.replicaSetLister.get(namespace, name);
      if (found === undefined) throw error;
      const owner = found.metadata?.ownerReferences?.find((ref) => ref.controller === true);
      if (
        owner?.uid !== deployment.metadata?.uid ||
        !equalIgnoreHash(deployment.spec?.template ?? {}, found.spec?.template ?? {})
      ) {
        const status = statusOf(deployment);
        status.collisionCount = (status.collisionCount ?? 0) + 1;
        await updateDeploymentStatus(ctx, deployment).catch(() => undefined);
        throw error;
      }
      result = found;
    } else if (hasStatusCause(error, NAMESPACE_TERMINATING_CAUSE)) {
      throw error;
    } else {
      const message = `Failed to create new replica set "${name}": ${messageOf(error)}`;
      if (hasProgressDeadline(deployment)) {
        setDeploymentCondition(
          statusOf(deployment),
          newDeploymentCondition(PROGRESSING, 'False', FAILED_RS_CREATE_REASON, message, ctx.now()),
        );
        // The failure itself is what matters; a failed status write changes nothing about it.
        await updateDeploymentStatus(ctx, deployment).catch(() => undefined);
      }
      ctx.recorder.event(deployment, 'Warning', FAILED_RS_CREATE_REASON, message);
      throw error;
    }
  }
  if (!alreadyExists && replicas > 0) {
    ctx.recorder.event(
      deployment,
      'Normal',
      'ScalingReplicaSet',
      `Scaled up replica set ${result.metadata?.name} from 0 to ${replicas}`,
    );
  }
  let needsUpdate = setDeploymentRevision(deployment, String(newRevision));
  if (!alreadyExists && hasProgressDeadline(deployment)) {
    const message = `Created new replica set "${result.metadata?.name}"`;
    setDeploymentCondition(
      statusOf(deployment),
      newDeploymentCondition(PROGRESSING, 'True', NEW_REPLICA_SET_REASON, message, ctx.now()),
    );
    needsUpdate = true;
  }
  if (needsUpdate) await updateDeploymentStatus(ctx, deployment);
  return result;
}

// ---- scaling -----------------------------------------------------------------------------

export interface ScaleResult {
  readonly scaled: boolean;
  readonly rs: ReplicaSet;
}

/** Scales a ReplicaSet (recording ScalingReplicaSet) unless it already has that size. */
export async function scaleReplicaSetAndRecordEvent(
  ctx: SyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
): Promise<ScaleResult> {
  if (specReplicas(rs) === newScale) return { scaled: false, rs };
  const operation = specReplicas(rs) < newScale ? 'up' : 'down';
  return scaleReplicaSet(ctx, rs, newScale, deployment, operation);
}

/** Writes the new size and the Deployment's current replicas annotations to the ReplicaSet. */
export async function scaleReplicaSet(
  ctx: SyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
  operation: string,
): Promise<ScaleResult> {
  const sizeNeedsUpdate = specReplicas(rs) !== newScale;
  const replicas = specReplicas(deployment);
  const max = replicas + maxSurge(deployment);
  if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, replicas, max)) return { scaled: false, rs };
  const oldScale = specReplicas(rs);
  const copy = structuredClone(rs);
  copy.spec = { ...copy.spec!, replicas: newScale };
  setReplicasAnnotations(copy, replicas, max);
  const updated = await ctx.replicaSets.update(copy);
  if (sizeNeedsUpdate) {
    ctx.recorder.event(
      deployment,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${operation} replica set ${rs.metadata?.name} from ${oldScale} to ${newScale}`,
    );
  }
  return { scaled: sizeNeedsUpdate, rs: updated };
}

/**
 * Scaling outside a rollout step (a scaling event, or a paused Deployment): one active ReplicaSet
 * takes the whole size; a saturated new one makes the old ones go; otherwise, for rolling
 * Deployments, the change is shared out in proportion to the ReplicaSets' sizes.
 */
export async function scale(
  ctx: SyncContext,
  deployment: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): Promise<void> {
  const replicas = specReplicas(deployment);
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest !== undefined) {
    if (specReplicas(activeOrLatest) === replicas) return;
    await scaleReplicaSetAndRecordEvent(ctx, activeOrLatest, replicas, deployment);
    return;
  }
  if (isSaturated(deployment, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) await scaleReplicaSetAndRecordEvent(ctx, old, 0, deployment);
    return;
  }
  if (!isRollingUpdate(deployment)) return;
  const all = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicas > 0 ? replicas + maxSurge(deployment) : 0;
  const toAdd = allowed - replicaCount(all);
  let operation = '';
  // Equal sizes: newer ReplicaSets grow first, older ones shrink first.
  if (toAdd > 0) {
    all.sort(bySizeNewer);
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort(bySizeOlder);
    operation = 'down';
  }
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of all) {
    const name = rs.metadata?.name ?? '';
    if (toAdd === 0) {
      sizes.set(name, specReplicas(rs));
      continue;
    }
    const share = proportion(rs, deployment, toAdd, added);
    sizes.set(name, specReplicas(rs) + share);
    added += share;
  }
  for (const [index, rs] of all.entries()) {
    const name = rs.metadata?.name ?? '';
    // Leftovers go to the largest ReplicaSet.
    if (index === 0 && toAdd !== 0) sizes.set(name, Math.max(0, sizes.get(name)! + toAdd - added));
    await scaleReplicaSet(ctx, rs, sizes.get(name)!, deployment, operation);
  }
}

/** A change of spec.replicas not yet passed to the active ReplicaSets' desired-replicas annotations. */
export async function isScalingEvent(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): Promise<boolean> {
  const { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, false);
  return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
    const desired = desiredReplicasAnnotation(rs);
    return desired !== undefined && desired !== specReplicas(deployment);
  });
}

/** Deletes the oldest old ReplicaSets beyond revisionHistoryLimit that have scaled down to nothing. */
export async function cleanupDeployment(
  ctx: SyncContext,
  oldRSs: readonly ReplicaSet[],
  deployment: Deployment,
): Promise<void> {
  if (!hasRevisionHistoryLimit(deployment)) return;
  const cleanable = oldRSs.filter((rs) => rs.metadata?.deletionTimestamp === undefined);
  const diff = cleanable.length - (deployment.spec?.revisionHistoryLimit ?? 0);
  if (diff <= 0) return;
  cleanable.sort(byRevision);
  for (const rs of cleanable.slice(0, diff)) {
    // Only ReplicaSets with no pods left whose controller has seen their latest spec.
    if (
      (rs.status?.replicas ?? 0) !== 0 ||
      specReplicas(rs) !== 0 ||
      (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)
    ) {
      continue;
    }
    try {
      await ctx.replicaSets.delete(rs.metadata?.namespace ?? '', rs.metadata?.name ?? '');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

// ---- status ------------------------------------------------------------------------------

/** The status as Go encodes DeploymentStatus (zero counts and empty conditions left out). */
export function wireDeploymentStatus(status: DeploymentStatus): DeploymentStatus {
  const wire: DeploymentStatus = {};
  if (status.observedGeneration) wire.observedGeneration = status.observedGeneration;
  if (status.replicas) wire.replicas = status.replicas;
  if (status.updatedReplicas) wire.updatedReplicas = status.updatedReplicas;
  if (status.readyReplicas) wire.readyReplicas = status.readyReplicas;
  if (status.availableReplicas) wire.availableReplicas = status.availableReplicas;
  if (status.unavailableReplicas) wire.unavailableReplicas = status.unavailableReplicas;
  if (status.terminatingReplicas !== undefined) wire.terminatingReplicas = status.terminatingReplicas;
  if (status.conditions && status.conditions.length > 0) {
    wire.conditions = status.conditions.map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.lastUpdateTime ? { lastUpdateTime: c.lastUpdateTime } : {}),
      ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.message ? { message: c.message } : {}),
    }));
  }
  if (status.collisionCount !== undefined) wire.collisionCount = status.collisionCount;
  return wire;
}

export function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  return JSON.stringify(wireDeploymentStatus(a ?? {})) === JSON.stringify(wireDeploymentStatus(b));
}

/** The status the ReplicaSets make: counts, and Available by whether enough pods are available. */
export function calculateStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
  nowMs: number,
): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas: actualReplicaCount(allRSs),
    updatedReplicas: actualReplicaCount([newRS]),
    readyReplicas: readyReplicaCount(allRSs),
    availableReplicas: available,
    // More available than wanted (scaling down) is not negative unavailability.
    unavailableReplicas: Math.max(0, replicaCount(allRSs) - available),
    ...(deployment.status?.collisionCount !== undefined
      ? { collisionCount: deployment.status.collisionCount }
      : {}),
    conditions: [...(deployment.status?.conditions ?? [])],
  };
  if (available >= specReplicas(deployment) - maxUnavailable(deployment)) {
    const condition = newDeploymentCondition(
      AVAILABLE,
      'True',
      MINIMUM_REPLICAS_AVAILABLE,
      'Deployment has minimum availability.',
      nowMs,
    );
    setDeploymentCondition(status, condition);
  } else {
    const condition = newDeploymentCondition(
      AVAILABLE,
      'False',
      MINIMUM_REPLICAS_UNAVAILABLE,
      'Deployment does not have minimum availability.',
      nowMs,
    );
    setDeploymentCondition(status, condition);
  }
  return status;
}

/** Writes the status the ReplicaSets make, if it changed. */
export async function syncDeploymentStatus(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
): Promise<void> {
  const status = calculateStatus(allRSs, newRS, deployment, ctx.now());
  if (sameStatus(deployment.status, status)) return;
  deployment.status = wireDeploymentStatus(status);
  await updateDeploymentStatus(ctx, deployment);
}

/** Status only: for Deployments being deleted. */
export async function syncStatusOnly(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): Promise<void> {
  const { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, false);
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, deployment);
}

/** Scaling events and paused Deployments: scale, prune a paused one's history, write the status. */
export async function syncScaling(
  ctx: SyncContext,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): Promise<void> {
  const { newRS, oldRSs } = await replicaSetsAndSyncRevision(ctx, deployment, replicaSets, false);
  await scale(ctx, deployment, newRS, oldRSs);
  if (deployment.spec?.paused && rollbackRevision(deployment) === undefined) {
    await cleanupDeployment(ctx, oldRSs, deployment);
  }
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, deployment);
}

/**
 * Pausing and resuming set Progressing to Unknown (DeploymentPaused / DeploymentResumed), so the
 * time spent paused does not count against the progress deadline.
 */
export async function checkPausedConditions(ctx: SyncContext, deployment: Deployment): Promise<void> {
  if (!hasProgressDeadline(deployment)) return;
  const condition = deploymentCondition(deployment.status, PROGRESSING);
  // A reported lack of progress is not overwritten by pausing.
  if (condition?.reason === TIMED_OUT_REASON) return;
  const pausedConditionExists = condition?.reason === PAUSED_DEPLOY_REASON;
  const status = statusOf(deployment);
  if (deployment.spec?.paused && !pausedConditionExists) {
    setDeploymentCondition(
      status,
      newDeploymentCondition(PROGRESSING, 'Unknown', PAUSED_DEPLOY_REASON, 'Deployment is paused', ctx.now()),
    );
  } else if (!deployment.spec?.paused && pausedConditionExists) {
    setDeploymentCondition(
      status,
      newDeploymentCondition(
        PROGRESSING,
        'Unknown',
        RESUMED_DEPLOY_REASON,
        'Deployment is resumed',
        ctx.now(),
      ),
    );
  } else {
    return;
  }
  await updateDeploymentStatus(ctx, deployment);
}

/** The revision the deprecated rollbackTo annotation asks for (0: the previous one). */
export function rollbackRevision(deployment: Deployment): bigint | undefined {
  const text = deployment.metadata?.annotations?.[DEPRECATED_ROLLBACK_TO_ANNOTATION];
  return text === undefined ? undefined : parseInt64(text);
}
