// Deployment arithmetic and bookkeeping (pkg/controller/deployment/util/deployment_util.go):
// revisions and the annotations that carry them, surge and unavailability fenceposts, proportions
// for scaling during a rollout, finding the new and old ReplicaSets, and the conditions.
import type {
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  ReplicaSet,
  ReplicaSetCondition,
} from '../../api/types/apps-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';
import { equalIgnoreHash } from './template-equality.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** apps/v1 keeps the rollbackTo of older API versions in this annotation. */
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The label telling a Deployment's ReplicaSets (and their pods) apart. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

// Condition types and reasons.
export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';
export const REPLICA_FAILURE = 'ReplicaFailure';
export const REPLICA_SET_UPDATED_REASON = 'ReplicaSetUpdated';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const NEW_REPLICA_SET_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const PAUSED_DEPLOY_REASON = 'DeploymentPaused';
export const RESUMED_DEPLOY_REASON = 'DeploymentResumed';
export const MINIMUM_REPLICAS_AVAILABLE = 'MinimumReplicasAvailable';
export const MINIMUM_REPLICAS_UNAVAILABLE = 'MinimumReplicasUnavailable';
// Rollback event reasons.
export const ROLLBACK_REVISION_NOT_FOUND = 'DeploymentRollbackRevisionNotFound';
export const ROLLBACK_TEMPLATE_UNCHANGED = 'DeploymentRollbackTemplateUnchanged';
export const ROLLBACK_DONE = 'DeploymentRollback';

/** How long the revision-history annotation may grow. */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;
const MAX_INT32 = 2 ** 31 - 1;

/** Annotations of a Deployment that are not copied to its ReplicaSets (nor back on rollback). */
const ANNOTATIONS_TO_SKIP = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
]);

export function skipCopyAnnotation(key: string): boolean {
  return ANNOTATIONS_TO_SKIP.has(key);
}

// ---- counts ------------------------------------------------------------------------------

export function specReplicas(object: Deployment | ReplicaSet): number {
  return object.spec?.replicas ?? 1;
}

export function isRollingUpdate(deployment: Deployment): boolean {
  return (deployment.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

type MaybeReplicaSet = ReplicaSet | undefined;

/** Sum of spec.replicas. */
export function replicaCount(replicaSets: readonly MaybeReplicaSet[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs ? specReplicas(rs) : 0), 0);
}

/** Sum of status.replicas. */
export function actualReplicaCount(replicaSets: readonly MaybeReplicaSet[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.replicas ?? 0), 0);
}

export function readyReplicaCount(replicaSets: readonly MaybeReplicaSet[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.readyReplicas ?? 0), 0);
}

export function availableReplicaCount(replicaSets: readonly MaybeReplicaSet[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.availableReplicas ?? 0), 0);
}

// ---- fenceposts --------------------------------------------------------------------------

/**
 * intstr.GetScaledValueFromIntOrPercent: an integer as is, `N%` of total rounded up or down.
 * Throws with Kubernetes' message for anything else.
 */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) throw new Error('nil value for IntOrString');
  if (typeof value === 'number') return value;
  if (!value.endsWith('%')) {
    throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  }
  const digits = value.slice(0, -1);
  if (!/^[+-]?[0-9]+$/.test(digits)) {
    throw new Error(
      `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax`,
    );
  }
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * ResolveFenceposts: maxSurge rounds up and maxUnavailable down; when both come out 0,
 * maxUnavailable is 1 (surging may be impossible, e.g. under quota).
 */
export function resolveFenceposts(
  maxSurge: number | string | undefined,
  maxUnavailable: number | string | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** The most pods a rolling Deployment may have unavailable (never more than it wants). */
export function maxUnavailable(deployment: Deployment): number {
  const replicas = specReplicas(deployment);
  if (!isRollingUpdate(deployment) || replicas === 0) return 0;
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  const { unavailable } = resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, replicas);
  return Math.min(unavailable, replicas);
}

/** The most pods a rolling Deployment may have above spec.replicas. */
export function maxSurge(deployment: Deployment): number {
  if (!isRollingUpdate(deployment)) return 0;
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, specReplicas(deployment)).surge;
}

/** How many replicas the new ReplicaSet should have now (NewRSNewReplicas). */
export function newRSNewReplicas(
  deployment: Deployment,
  allReplicaSets: readonly MaybeReplicaSet[],
  newRS: ReplicaSet,
): number {
  const replicas = specReplicas(deployment);
  if (!isRollingUpdate(deployment)) {
    if (deployment.spec?.strategy?.type === 'Recreate') return replicas;
    throw new Error(`deployment type ${deployment.spec?.strategy?.type} isn't supported`);
  }
  const surge = scaledValue(deployment.spec?.strategy?.rollingUpdate?.maxSurge, replicas, true);
  const current = replicaCount(allReplicaSets);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, replicas - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}

// ---- annotations and revisions -----------------------------------------------------------

/**
 * strconv.ParseInt(text, 10, 64): revisions are int64, and past 2^53 a JavaScript number would
 * round them, so they are bigints here.
 */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return BigInt.asIntN(64, value) === value ? value : undefined;
}

/** The revision annotation (0 when absent); undefined when it is not an int64. */
export function revisionOf(object: Deployment | ReplicaSet): bigint | undefined {
  const text = object.metadata?.annotations?.[REVISION_ANNOTATION];
  if (text === undefined) return 0n;
  return parseInt64(text);
}

export function maxRevision(replicaSets: readonly ReplicaSet[]): bigint {
  let max = 0n;
  for (const rs of replicaSets) {
    const revision = revisionOf(rs) ?? 0n;
    if (revision > max) max = revision;
  }
  return max;
}

/** The revision after `max`, wrapping as Go's int64 addition does. */
export function nextRevision(max: bigint): bigint {
  return BigInt.asIntN(64, max + 1n);
}

/** The second highest revision (the one before the current). */
export function lastRevision(replicaSets: readonly MaybeReplicaSet[]): bigint {
  let max = 0n;
  let second = 0n;
  for (const rs of replicaSets) {
    const revision = rs && revisionOf(rs);
    if (revision === undefined) continue;
    if (revision >= max) {
      second = max;
      max = revision;
    } else if (revision > second) {
      second = revision;
    }
  }
  return second;
}

function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const text = rs.metadata?.annotations?.[key];
  return text !== undefined && /^[+-]?[0-9]+$/.test(text) ? Number(text) : undefined;
}

export function desiredReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

/** The object's metadata, created when missing (to be written to). */
export function metadataOf(object: Deployment | ReplicaSet): NonNullable<Deployment['metadata']> {
  if (object.metadata === undefined) object.metadata = {};
  return object.metadata;
}

function annotationsOf(object: Deployment | ReplicaSet): Record<string, string> {
  const meta = metadataOf(object);
  if (meta.annotations === undefined) meta.annotations = {};
  return meta.annotations;
}

/** The Deployment's status, created when missing (to be written to). */
export function statusOf(deployment: Deployment): DeploymentStatus {
  if (deployment.status === undefined) deployment.status = {};
  return deployment.status;
}

/** Sets the desired-replicas and max-replicas annotations; true when they changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = annotationsOf(rs);
  let updated = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    updated = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    updated = true;
  }
  return updated;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = rs.metadata?.annotations;
  return (
    annotations === undefined ||
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/** Copies the Deployment's annotations (but the skipped ones) to the ReplicaSet; true when any changed. */
function copyDeploymentAnnotations(deployment: Deployment, rs: ReplicaSet): boolean {
  const annotations = annotationsOf(rs);
  let changed = false;
  for (const [key, value] of Object.entries(deployment.metadata?.annotations ?? {})) {
    if (skipCopyAnnotation(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  return changed;
}

/**
 * SetNewReplicaSetAnnotations: copies the Deployment's annotations, raises the revision to
 * `newRevision` (keeping the old one in revision-history: a rollback to this ReplicaSet), and for a
 * ReplicaSet about to be created sets the replicas annotations. True when anything changed.
 */
export function setNewReplicaSetAnnotations(
  deployment: Deployment,
  rs: ReplicaSet,
  newRevision: bigint,
  exists: boolean,
  historyLimitInChars: number = MAX_REV_HISTORY_LENGTH_IN_CHARS,
): boolean {
  let changed = copyDeploymentAnnotations(deployment, rs);
  const annotations = annotationsOf(rs);
  const oldText = annotations[REVISION_ANNOTATION];
  let oldRevision = 0n;
  if (oldText !== undefined && oldText !== '') {
    const parsed = parseInt64(oldText);
    if (parsed === undefined) return false;
    oldRevision = parsed;
  }
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldText !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      const revisions = history.split(',');
      if (revisions[0]!.length === 0) {
        annotations[REVISION_HISTORY_ANNOTATION] = oldText;
      } else {
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > historyLimitInChars && start < revisions.length) {
          total -= revisions[start]!.length + 1;
          start++;
        }
        if (total <= historyLimitInChars) {
          annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldText].join(',');
        }
      }
    }
  }
  if (!exists) {
    const replicas = specReplicas(deployment);
    if (setReplicasAnnotations(rs, replicas, replicas + maxSurge(deployment))) changed = true;
  }
  return changed;
}

/** Sets the Deployment's revision annotation; true when it changed. */
export function setDeploymentRevision(deployment: Deployment, revision: string): boolean {
  const annotations = annotationsOf(deployment);
  if (annotations[REVISION_ANNOTATION] === revision) return false;
  annotations[REVISION_ANNOTATION] = revision;
  return true;
}

/** On rollback: the Deployment takes the ReplicaSet's annotations (but the skipped ones it keeps). */
export function setDeploymentAnnotationsTo(deployment: Deployment, rs: ReplicaSet): void {
  const kept = Object.entries(deployment.metadata?.annotations ?? {}).filter(([key]) =>
    skipCopyAnnotation(key),
  );
  const annotations: Record<string, string> = Object.fromEntries(kept);
  for (const [key, value] of Object.entries(rs.metadata?.annotations ?? {})) {
    if (!skipCopyAnnotation(key)) annotations[key] = value;
  }
  metadataOf(deployment).annotations = annotations;
}

// ---- proportions -------------------------------------------------------------------------

/** Go's integer.RoundToInt32: half away from zero. */
function roundToInt32(value: number): number {
  return value < 0 ? Math.trunc(value - 0.5) : Math.trunc(value + 0.5);
}

/** This ReplicaSet's share of the change in total replicas (getReplicaSetFraction). */
function replicaSetFraction(rs: ReplicaSet, deployment: Deployment): number {
  const replicas = specReplicas(deployment);
  if (replicas === 0) return -specReplicas(rs);
  const deploymentMax = replicas + maxSurge(deployment);
  let maxBefore = intAnnotation(rs, MAX_REPLICAS_ANNOTATION);
  if (maxBefore === undefined || maxBefore === 0) {
    // Annotation edited away (or from an older controller): the Deployment's current size.
    maxBefore = deployment.status?.replicas ?? 0;
    if (maxBefore === 0) return 0;
  }
  return roundToInt32((specReplicas(rs) * deploymentMax) / maxBefore) - specReplicas(rs);
}

/** GetProportion: how many replicas this ReplicaSet gains (or loses) of `toAdd`, `added` given out so far. */
export function proportion(rs: ReplicaSet, deployment: Deployment, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, deployment);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** The new ReplicaSet has all the replicas the Deployment wants, all available. */
export function isSaturated(deployment: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const desired = desiredReplicasAnnotation(rs);
  if (desired === undefined) return false;
  const replicas = specReplicas(deployment);
  return (
    specReplicas(rs) === replicas && desired === replicas && (rs.status?.availableReplicas ?? 0) === replicas
  );
}

// ---- finding ReplicaSets -----------------------------------------------------------------

function createdAt(rs: ReplicaSet): number {
  const text = rs.metadata?.creationTimestamp;
  return text === undefined ? 0 : Date.parse(text);
}

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const diff = createdAt(a) - createdAt(b);
  if (diff !== 0) return diff;
  const nameA = a.metadata?.name ?? '';
  const nameB = b.metadata?.name ?? '';
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}

/** Largest first; equal sizes oldest first. */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || byCreationTimestamp(a, b);
}

/** Largest first; equal sizes newest first. */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || byCreationTimestamp(b, a);
}

/** Lowest revision first; unparsable or equal revisions by creation time. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const revisionA = revisionOf(a);
  const revisionB = revisionOf(b);
  if (revisionA === undefined || revisionB === undefined || revisionA === revisionB) {
    return byCreationTimestamp(a, b);
  }
  return revisionA < revisionB ? -1 : 1;
}

/** ReplicaSets that have (or ought to have) pods. */
export function activeReplicaSets(replicaSets: readonly MaybeReplicaSet[]): ReplicaSet[] {
  return replicaSets.filter((rs): rs is ReplicaSet => rs !== undefined && specReplicas(rs) > 0);
}

/** The oldest ReplicaSet whose template is the Deployment's (ignoring the hash label). */
export function findNewReplicaSet(
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): ReplicaSet | undefined {
  return [...replicaSets]
    .sort(byCreationTimestamp)
    .find((rs) => equalIgnoreHash(rs.spec?.template ?? {}, deployment.spec?.template ?? {}));
}

/** All ReplicaSets but the new one. */
export function findOldReplicaSets(deployment: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(deployment, replicaSets);
  return replicaSets.filter((rs) => newRS === undefined || rs.metadata?.uid !== newRS.metadata?.uid);
}

/**
 * The only active ReplicaSet when at most one is active: that one, or (none active) the new one,
 * else the newest old one. Undefined when several are active (they scale proportionally).
 */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

// ---- progress and conditions -------------------------------------------------------------

export function hasProgressDeadline(deployment: Deployment): boolean {
  const deadline = deployment.spec?.progressDeadlineSeconds;
  return deadline !== undefined && deadline !== MAX_INT32;
}

export function hasRevisionHistoryLimit(deployment: Deployment): boolean {
  const limit = deployment.spec?.revisionHistoryLimit;
  return limit !== undefined && limit !== MAX_INT32;
}

/** Every pod updated, available, and the current generation observed. */
export function deploymentComplete(deployment: Deployment, status: DeploymentStatus): boolean {
  const replicas = specReplicas(deployment);
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  );
}

/** New pods were added or became ready or available, or old pods went, since the status it has. */
export function deploymentProgressing(deployment: Deployment, status: DeploymentStatus): boolean {
  const old = deployment.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** The Progressing condition was last updated longer than progressDeadlineSeconds ago. */
export function deploymentTimedOut(deployment: Deployment, status: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(deployment)) return false;
  const condition = deploymentCondition(status, PROGRESSING);
  if (condition === undefined) return false;
  if (condition.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (condition.reason === TIMED_OUT_REASON) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  return from + (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}

export function deploymentCondition(
  status: DeploymentStatus | undefined,
  type: string,
): DeploymentCondition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}

export function newDeploymentCondition(
  type: string,
  status: string,
  reason: string,
  message: string,
  nowMs: number,
): DeploymentCondition {
  const now = rfc3339(nowMs);
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/**
 * Sets a condition: nothing happens when one of the type with the same status and reason is there;
 * lastTransitionTime is kept while the status stays.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = deploymentCondition(status, condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason)
    return;
  const next = { ...condition };
  if (current !== undefined && current.status === condition.status) {
    next.lastTransitionTime = current.lastTransitionTime;
  }
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  const remaining = (status.conditions ?? []).filter((condition) => condition.type !== type);
  if (remaining.length > 0) status.conditions = remaining;
  else delete status.conditions;
}

/** A ReplicaSet's failure condition as a Deployment condition. */
export function replicaSetToDeploymentCondition(condition: ReplicaSetCondition): DeploymentCondition {
  return {
    type: condition.type,
    status: condition.status,
    lastUpdateTime: condition.lastTransitionTime,
    lastTransitionTime: condition.lastTransitionTime,
    reason: condition.reason,
    message: condition.message,
  };
}
