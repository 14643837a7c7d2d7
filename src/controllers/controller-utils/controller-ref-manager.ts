// Adoption and release (pkg/controller/controller_ref_manager.go): a controller claims the objects
// its selector matches that nobody controls (adding itself as their controller), and lets go of
// objects it controls that its selector no longer matches. Objects controlled by others are left
// alone.
import type { LabelSelector } from '../../api/selectors/index.js';
import { isInvalid, isNotFound } from '../../client/rest/index.js';
import type { ApiObject } from '../../client/types.js';
import { controllerRefOf, newControllerRef, type OwnerKind } from './owner-references.js';
import { messageOf } from './pod-control.js';

export interface ClaimOptions<T extends ApiObject> {
  /** The claiming controller object (a ReplicaSet, a Deployment ...). */
  readonly owner: ApiObject;
  readonly ownerKind: OwnerKind;
  /** The kind of the claimed objects, for messages (`Pod`, `ReplicaSet`). */
  readonly objectKind: string;
  readonly selector: LabelSelector;
  /** Throws when adoption must not happen (the owner is being deleted): see {@link recheckDeletionTimestamp}. */
  readonly canAdopt: () => Promise<void>;
  /** Patches the object with {@link adoptionPatch}. */
  readonly adopt: (object: T) => Promise<void>;
  /** Patches the object with {@link releasePatch}. */
  readonly release: (object: T) => Promise<void>;
  /** More conditions an object must meet to be claimed, checked after the selector. */
  readonly filter?: (object: T) => boolean;
}

/**
 * The objects the owner controls after adopting and releasing (ClaimObject for each). Failures are
 * collected: the claimed ones are returned only when every adoption and release worked, else the
 * errors are thrown together (the caller retries).
 */
export async function claimObjects<T extends ApiObject>(
  objects: readonly T[],
  options: ClaimOptions<T>,
): Promise<T[]> {
  const claimed: T[] = [];
  const errors: unknown[] = [];
  for (const object of objects) {
    try {
      if (await claimObject(object, options)) claimed.push(object);
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(`[${errors.map(messageOf).join(', ')}]`);
  return claimed;
}

async function claimObject<T extends ApiObject>(object: T, options: ClaimOptions<T>): Promise<boolean> {
  const { owner } = options;
  const matches = (): boolean =>
    options.selector.matches(object.metadata?.labels ?? {}) && (options.filter?.(object) ?? true);
  const ownerDeleting = owner.metadata?.deletionTimestamp !== undefined;
  const reference = controllerRefOf(object);
  if (reference !== undefined) {
    if (reference.uid !== owner.metadata?.uid) return false;
    // Ours and still matching: claimed without any write (allowed even while being deleted).
    if (matches()) return true;
    if (ownerDeleting) return false;
    try {
      await options.release(object);
    } catch (error) {
      if (isNotFound(error) || isInvalid(error)) return false;
      throw error;
    }
    return false;
  }
  // An orphan.
  if (ownerDeleting || !matches()) return false;
  if (object.metadata?.deletionTimestamp !== undefined) return false;
  const namespace = owner.metadata?.namespace;
  if (namespace && namespace !== object.metadata?.namespace) return false;
  try {
    await options.canAdopt().catch((error: unknown) => {
      const meta = object.metadata ?? {};
      throw new Error(
        `can't adopt ${options.objectKind} ${meta.namespace}/${meta.name} (${meta.uid}): ${messageOf(error)}`,
      );
    });
    await options.adopt(object);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  return true;
}

/**
 * Adoption must not race the owner's deletion: before the first adoption of a sync, read the
 * owner fresh from the apiserver (not the cache) once, and refuse if it is being deleted.
 */
export function recheckDeletionTimestamp(readFresh: () => Promise<ApiObject>): () => Promise<void> {
  let checked: Promise<void> | undefined;
  return () => {
    checked ??= readFresh().then((fresh) => {
      const meta = fresh.metadata ?? {};
      if (meta.deletionTimestamp !== undefined) {
        throw new Error(`${meta.namespace}/${meta.name} has just been deleted at ${meta.deletionTimestamp}`);
      }
    });
    return checked;
  };
}

/** The strategic merge patch that makes `owner` the controller of the object with `uid`. */
export function adoptionPatch(owner: ApiObject, ownerKind: OwnerKind, uid: string): unknown {
  return { metadata: { ownerReferences: [newControllerRef(owner, ownerKind)], uid } };
}

/** The strategic merge patch that removes `ownerUid`'s reference from the object with `uid`. */
export function releasePatch(uid: string, ownerUid: string): unknown {
  return { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid } };
}
