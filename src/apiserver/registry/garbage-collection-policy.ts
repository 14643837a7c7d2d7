// The finalizers a DELETE leaves for the garbage collector (kube-apiserver's
// deletionFinalizersForGarbageCollection): `orphan` asks it to strip the object's dependents of
// their references to it, `foregroundDeletion` to delete the dependents first. The request's
// propagationPolicy decides; without one, a finalizer the object already carries; without that,
// the resource's default policy.
import type { ResourceInfo } from '../../api/resources/types.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_DELETION_FINALIZER = 'foregroundDeletion';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** rest.GarbageCollectionPolicy of a registry strategy. */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents';

/**
 * The strategies' DefaultGarbageCollectionPolicy: ReplicationControllers in core/v1 and Jobs in
 * batch/v1 orphan their dependents unless told otherwise (what they did before server-side
 * cascading deletion existed); every other served resource deletes them.
 */
export function defaultGarbageCollectionPolicy(
  info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>,
): GarbageCollectionPolicy {
  const legacyOrphaning =
    (info.group === '' && info.version === 'v1' && info.kind === 'ReplicationController') ||
    (info.group === 'batch' && info.version === 'v1' && info.kind === 'Job');
  return legacyOrphaning ? 'OrphanDependents' : 'DeleteDependents';
}

/** The first garbage-collection finalizer in the list decides when the request names no policy. */
function finalizerChoice(finalizers: readonly string[]): 'orphan' | 'foreground' | undefined {
  for (const finalizer of finalizers) {
    if (finalizer === ORPHAN_FINALIZER) return 'orphan';
    if (finalizer === FOREGROUND_DELETION_FINALIZER) return 'foreground';
  }
  return undefined;
}

export function shouldOrphanDependents(
  finalizers: readonly string[],
  policy: PropagationPolicy | undefined,
  defaultPolicy: GarbageCollectionPolicy,
): boolean {
  if (policy !== undefined) return policy === 'Orphan';
  const chosen = finalizerChoice(finalizers);
  if (chosen !== undefined) return chosen === 'orphan';
  return defaultPolicy === 'OrphanDependents';
}

export function shouldDeleteDependents(
  finalizers: readonly string[],
  policy: PropagationPolicy | undefined,
): boolean {
  if (policy !== undefined) return policy === 'Foreground';
  return finalizerChoice(finalizers) === 'foreground';
}

/**
 * The object's finalizers after a delete with `policy`, or undefined when they stay as they are
 * (the same set). Changed lists keep the other finalizers in order and append the chosen one.
 */
export function deletionFinalizersForGarbageCollection(
  finalizers: readonly string[],
  policy: PropagationPolicy | undefined,
  defaultPolicy: GarbageCollectionPolicy,
): string[] | undefined {
  const next = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_DELETION_FINALIZER);
  if (shouldOrphanDependents(finalizers, policy, defaultPolicy)) next.push(ORPHAN_FINALIZER);
  if (shouldDeleteDependents(finalizers, policy)) next.push(FOREGROUND_DELETION_FINALIZER);
  const before = new Set(finalizers);
  const after = new Set(next);
  const same = before.size === after.size && [...after].every((f) => before.has(f));
  return same ? undefined : next;
}
