// The collector's API calls (upstream's operations.go and patch.go): live reads, deletes with
// preconditions, owner-reference patches and finalizer removal. Objects are addressed by their
// graph identity, mapped to a resource through the built-in table.
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import { apiErrorCode, sleep } from '../../client/informers/index.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { ApiObject, Client, ResourceClient } from '../../client/types.js';
import { formatIdentity, type ObjectIdentity, sameReference } from './object-identity.js';
import { resourceFor } from './resources.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** A JSON merge patch built from the live object, for resources without strategic merge patch. */
export type MergePatchBuilder = (live: ApiObject) => unknown;

/** client-go's retry.DefaultBackoff: 4 tries, 10 ms growing fivefold, 10% jitter. */
const RETRY_STEPS = 4;
const RETRY_FIRST_MS = 10;
const RETRY_FACTOR = 5;

/**
 * A namespaced kind named as owner by a cluster-scoped object: there is no namespace to look in,
 * and retrying will not give one (upstream's namespacedOwnerOfClusterScopedObjectErr).
 */
export class NamespacedOwnerOfClusterScopedObject extends Error {
  constructor() {
    super('cluster-scoped objects cannot refer to namespaced owners');
  }
}

export class GarbageCollectorOperations {
  constructor(private readonly client: Client) {}

  private target(identity: ObjectIdentity): { resource: ResourceClient<ApiObject>; namespace: string } {
    const ref = resourceFor(identity.apiVersion, identity.kind);
    if (ref.namespaced && identity.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    return {
      resource: this.client.resource<ApiObject>(ref),
      namespace: ref.namespaced ? identity.namespace : '',
    };
  }

  /** Whether the identity's kind is namespaced (throws RestMappingError for unknown kinds). */
  isNamespaced(apiVersion: string, kind: string): boolean {
    return resourceFor(apiVersion, kind).namespaced;
  }

  /** The live object, or undefined when it does not exist. */
  async get(identity: ObjectIdentity): Promise<ApiObject | undefined> {
    const { resource, namespace } = this.target(identity);
    try {
      return await resource.get(namespace, identity.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Deletes the object if it still has this uid and resourceVersion. When only the
   * resourceVersion moved and the owner references are as they were, the delete is retried
   * with the uid alone; the object having gone meanwhile is thrown as NotFound.
   */
  async delete(
    identity: ObjectIdentity,
    resourceVersion: string,
    ownersAtResourceVersion: readonly OwnerReference[],
    policy: PropagationPolicy,
  ): Promise<void> {
    const { resource, namespace } = this.target(identity);
    const { uid, name } = identity;
    try {
      await resource.delete(namespace, name, {
        preconditions: { uid, ...(resourceVersion ? { resourceVersion } : {}) },
        propagationPolicy: policy,
      });
      return;
    } catch (error) {
      if (!isConflict(error) || !resourceVersion) throw error;
      const live = await resource.get(namespace, name); // NotFound propagates
      const liveMeta = live.metadata ?? {};
      const ownersUnchanged = sameReferences(liveMeta.ownerReferences ?? [], ownersAtResourceVersion);
      if (liveMeta.uid !== uid || liveMeta.resourceVersion === resourceVersion || !ownersUnchanged)
        throw error;
      await resource.delete(namespace, name, { preconditions: { uid }, propagationPolicy: policy });
    }
  }

  /**
   * A strategic merge patch, or the JSON merge patch `fallback` builds from the live object
   * when the resource does not take strategic merge patches (415).
   */
  async patch(identity: ObjectIdentity, strategic: unknown, fallback: MergePatchBuilder): Promise<void> {
    const { resource, namespace } = this.target(identity);
    try {
      await resource.patch(namespace, identity.name, 'strategic', strategic);
    } catch (error) {
      if (apiErrorCode(error) !== 415) throw error;
      const live = await this.get(identity);
      if (live === undefined) throw error;
      await resource.patch(namespace, identity.name, 'merge', fallback(live));
    }
  }

  /** Removes one finalizer, retrying conflicts briefly; a missing object or finalizer is fine. */
  async removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void> {
    const { resource, namespace } = this.target(identity);
    let delayMs = RETRY_FIRST_MS;
    for (let step = 1; ; step++) {
      const live = await this.get(identity).catch((error: unknown) => {
        throw new Error(
          `cannot finalize owner ${formatIdentity(identity)}, because cannot get it: ${errorText(error)}. The garbage collector will retry later.`,
        );
      });
      if (live === undefined) return;
      const finalizers = live.metadata?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const remaining = finalizers.filter((f) => f !== finalizer);
      try {
        // The resourceVersion makes the patch fail on a concurrent change instead of undoing it.
        await resource.patch(namespace, identity.name, 'merge', {
          metadata: {
            resourceVersion: live.metadata?.resourceVersion,
            finalizers: remaining.length > 0 ? remaining : null,
          },
        });
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error)) throw error;
        if (step >= RETRY_STEPS) {
          throw new Error(
            `updateMaxRetries(${RETRY_STEPS}) has reached. The garbage collector will retry later for owner ${formatIdentity(identity)}.`,
          );
        }
      }
      await sleep(delayMs * (1 + Math.random() * 0.1));
      delayMs *= RETRY_FACTOR;
    }
  }
}

function sameReferences(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return a.length === b.length && a.every((ref, i) => sameReference(ref, b[i]!));
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Removes the references to these owners (the dependent's uid in the patch guards against a namesake). */
export function deleteOwnerRefStrategicMergePatch(
  dependentUid: string,
  ownerUids: readonly string[],
): unknown {
  return {
    metadata: {
      ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })),
      uid: dependentUid,
    },
  };
}

export function deleteOwnerRefMergePatch(live: ApiObject, ownerUids: readonly string[]): unknown {
  const remaining = (live.metadata?.ownerReferences ?? []).filter((ref) => !ownerUids.includes(ref.uid));
  return {
    metadata: {
      resourceVersion: live.metadata?.resourceVersion,
      ownerReferences: remaining.length > 0 ? remaining : null,
    },
  };
}

/** Sets blockOwnerDeletion to false on every blocking reference of the dependent. */
export function unblockOwnerReferencesStrategicMergePatch(
  dependentUid: string,
  owners: readonly OwnerReference[],
): unknown {
  const unblocked = owners
    .filter((owner) => owner.blockOwnerDeletion === true)
    .map((owner) => ({ ...owner, blockOwnerDeletion: false }));
  return { metadata: { uid: dependentUid, ...(unblocked.length > 0 ? { ownerReferences: unblocked } : {}) } };
}

export function unblockOwnerReferencesMergePatch(
  live: ApiObject,
  owners: readonly OwnerReference[],
): unknown {
  const unblocked = owners.map((owner) => ({ ...owner, blockOwnerDeletion: false }));
  return {
    metadata: {
      resourceVersion: live.metadata?.resourceVersion,
      ownerReferences: unblocked.length > 0 ? unblocked : null,
    },
  };
}
