// The replica manager (pkg/controller/replicaset/replica_set.go), shared by the ReplicaSet and
// ReplicationController controllers: keeps spec.replicas active pods for each object, adopting
// matching orphans and releasing pods that stopped matching, creating pods in slow-start batches
// and deleting the ones ranked cheapest to lose, then writes the status. Expectations hold an
// object back until the informer has seen the pods it created or deleted.

import { isPodReady } from '../../api/pod-conditions.js';
import type { LabelSelector } from '../../api/selectors/index.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { Controller, keyOf, objectOf, splitKey } from '../../client/controller.js';
import type { DeletedFinalStateUnknown, SharedInformer } from '../../client/informers/index.js';
import { PODS } from '../../client/resources.js';
import { hasStatusCause, isNotFound } from '../../client/rest/index.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext, RunnableController } from '../context.js';
import { filterActivePods, isPodActive, sortPodsForDeletion } from '../controller-utils/active-pods.js';
import {
  adoptionPatch,
  claimObjects,
  recheckDeletionTimestamp,
  releasePatch,
} from '../controller-utils/controller-ref-manager.js';
import { UidTrackingExpectations } from '../controller-utils/expectations.js';
import {
  CONTROLLER_UID_INDEX,
  controllerRefOf,
  controllerUidIndexFunc,
  enqueueOwnersOfChanged,
  labelsChanged,
  newControllerRef,
  type OwnerResolver,
} from '../controller-utils/owner-references.js';
import { NAMESPACE_TERMINATING_CAUSE, PodControl } from '../controller-utils/pod-control.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../controller-utils/slow-start.js';
import { calculateStatus, updateReplicatedStatus } from './replica-status.js';
import { desiredReplicas, type ReplicatedKind, type ReplicatedObject } from './replicated-kind.js';

/** Pods created or deleted per sync at most (BurstReplicas). */
export const BURST_REPLICAS = 500;
/** --concurrent-replicaset-syncs / --concurrent-rc-syncs. */
const WORKERS = 5;

export interface ReplicaManagerOptions {
  readonly burstReplicas?: number;
  readonly now?: () => number;
}

function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

export class ReplicaManager<T extends ReplicatedObject> implements RunnableController {
  readonly controller: Controller;
  readonly expectations: UidTrackingExpectations;
  private readonly owners: SharedInformer<T>;
  private readonly pods: SharedInformer<Pod>;
  private readonly resource: ResourceClient<T>;
  private readonly podControl: PodControl;
  private readonly burstReplicas: number;
  private readonly now: () => number;

  constructor(
    context: ControllerContext,
    private readonly kind: ReplicatedKind<T>,
    options: ReplicaManagerOptions = {},
  ) {
    this.burstReplicas = options.burstReplicas ?? BURST_REPLICAS;
    this.now = options.now ?? Date.now;
    this.expectations = new UidTrackingExpectations(this.now);
    const client = context.clientFor(kind.serviceAccount);
    this.resource = client.resource<T>(kind.ref);
    this.podControl = new PodControl(client, context.recorderFor(kind.serviceAccount, kind.serviceAccount));
    this.owners = context.informers.informerFor<T>(kind.ref, {
      indexers: { [CONTROLLER_UID_INDEX]: controllerUidIndexFunc },
    });
    this.pods = context.informers.informerFor<Pod>(PODS);
    const ownerRegistration = this.owners.addEventHandler({
      onAdd: (object) => this.controller.enqueue(object),
      onUpdate: (old, current) => this.updateOwner(old, current),
      onDelete: (object) => this.deleteOwner(object),
    });
    const podRegistration = this.pods.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (old, current) => this.updatePod(old, current),
      onDelete: (pod) => this.deletePod(objectOf(pod)),
    });
    this.controller = new Controller({
      name: kind.name,
      workers: WORKERS,
      sync: (key) => this.sync(key),
      waitFor: [ownerRegistration, podRegistration],
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  // ---- event handlers ----------------------------------------------------------------------

  private updateOwner(old: T, current: T): void {
    // A re-created object under the same name: the old one's expectations go.
    if (old.metadata?.uid !== current.metadata?.uid) this.deleteOwner(old);
    this.controller.enqueue(current);
  }

  private deleteOwner(object: T | DeletedFinalStateUnknown<T>): void {
    const key = keyOf(object);
    this.expectations.delete(key);
    this.controller.enqueueKey(key);
  }

  private readonly resolver: OwnerResolver<T> = {
    resolve: (namespace, reference) => {
      if (reference.kind !== this.kind.ownerKind.kind) return undefined;
      const object = this.owners.lister.get(namespace, reference.name);
      return object?.metadata?.uid === reference.uid ? object : undefined;
    },
    selecting: (pod) =>
      this.owners.lister.list(pod.metadata?.namespace ?? '').filter((object) => {
        const selector = this.selectorOrUndefined(object);
        return selector !== undefined && !selector.isEmpty() && selector.matches(pod.metadata?.labels ?? {});
      }),
  };

  private selectorOrUndefined(object: T): LabelSelector | undefined {
    try {
      return this.kind.selectorOf(object);
    } catch {
      return undefined;
    }
  }

  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp !== undefined) {
      // Seen for the first time while already being deleted (after a restart): not a creation.
      this.deletePod(pod);
      return;
    }
    const reference = controllerRefOf(pod);
    if (reference !== undefined) {
      const owner = this.resolver.resolve(pod.metadata?.namespace ?? '', reference);
      if (owner === undefined) return;
      const key = keyOf(owner);
      this.expectations.creationObserved(key);
      this.controller.enqueueKey(key);
      return;
    }
    // An orphan: wake whoever might adopt it (no creation is observed for it).
    for (const owner of this.resolver.selecting(pod)) this.controller.enqueue(owner);
  }

  private updatePod(old: Pod, current: Pod): void {
    if (old.metadata?.resourceVersion === current.metadata?.resourceVersion) return;
    if (current.metadata?.deletionTimestamp !== undefined) {
      // A graceful deletion started: count it now, so a replacement is not held back.
      this.deletePod(current);
      if (labelsChanged(old, current)) this.deletePod(old);
      return;
    }
    const owner = enqueueOwnersOfChanged(old, current, this.resolver, (o) => this.controller.enqueue(o));
    // The pod turns available minReadySeconds after turning ready: look again then (plus a second
    // against clock skew).
    const minReadySeconds = owner?.spec?.minReadySeconds ?? 0;
    if (owner !== undefined && !isPodReady(old) && isPodReady(current) && minReadySeconds > 0) {
      this.controller.enqueueAfter(owner, (minReadySeconds + 1) * 1000);
    }
  }

  private deletePod(pod: Pod): void {
    const reference = controllerRefOf(pod);
    if (reference === undefined) return;
    const owner = this.resolver.resolve(pod.metadata?.namespace ?? '', reference);
    if (owner === undefined) return;
    const key = keyOf(owner);
    this.expectations.deletionObserved(key, podKey(pod));
    this.controller.enqueueKey(key);
  }

  // ---- sync --------------------------------------------------------------------------------

  async sync(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const { namespace, name } = splitKey(key);
    const object = this.owners.lister.get(namespace, name);
    if (object === undefined) {
      this.expectations.delete(key);
      return undefined;
    }
    const needsSync = this.expectations.satisfied(key);
    const selector = this.selectorOrUndefined(object);
    if (selector === undefined) return undefined;
    // All pods of the namespace: pods we own that stopped matching must be released.
    const active = filterActivePods(this.pods.lister.list(namespace));
    const pods = await this.claimPods(object, selector, active);
    let manageError: unknown;
    if (needsSync && object.metadata?.deletionTimestamp === undefined) {
      try {
        await this.manageReplicas(key, pods, object);
      } catch (error) {
        manageError = error;
      }
    }
    const status = calculateStatus(object, pods, manageError, this.now());
    const updated = await updateReplicatedStatus(this.resource, object, status);
    if (manageError !== undefined) throw manageError;
    // Look again once the ready pods should have turned available, in case no event says so.
    const replicas = desiredReplicas(updated);
    const minReadySeconds = updated.spec?.minReadySeconds ?? 0;
    if (
      minReadySeconds > 0 &&
      (updated.status?.readyReplicas ?? 0) === replicas &&
      (updated.status?.availableReplicas ?? 0) !== replicas
    ) {
      return { requeueAfterMs: minReadySeconds * 1000 };
    }
    return undefined;
  }

  private claimPods(object: T, selector: LabelSelector, pods: readonly Pod[]): Promise<Pod[]> {
    const meta = object.metadata ?? {};
    const namespace = meta.namespace ?? '';
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.resource.get(namespace, meta.name ?? '');
      if (fresh.metadata?.uid !== meta.uid) {
        throw new Error(
          `original ${this.kind.ownerKind.kind} ${namespace}/${meta.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${meta.uid}`,
        );
      }
      return fresh;
    });
    return claimObjects(pods, {
      owner: object,
      ownerKind: this.kind.ownerKind,
      objectKind: 'Pod',
      selector,
      canAdopt,
      adopt: (pod) =>
        this.podControl.patchPod(
          namespace,
          pod.metadata?.name ?? '',
          adoptionPatch(object, this.kind.ownerKind, pod.metadata?.uid ?? ''),
        ),
      release: (pod) =>
        this.podControl.patchPod(
          namespace,
          pod.metadata?.name ?? '',
          releasePatch(pod.metadata?.uid ?? '', meta.uid ?? ''),
        ),
    });
  }

  /** Creates or deletes pods to reach spec.replicas, at most burstReplicas at a time. */
  private async manageReplicas(key: string, pods: readonly Pod[], object: T): Promise<void> {
    const diff = pods.length - desiredReplicas(object);
    const namespace = object.metadata?.namespace ?? '';
    // Events name the object by kind, which cached list items need not carry.
    const parent = { ...object, ...this.kind.ownerKind };
    if (diff < 0) {
      const count = Math.min(-diff, this.burstReplicas);
      this.expectations.expectCreations(key, count);
      const template = object.spec?.template ?? {};
      const reference = newControllerRef(object, this.kind.ownerKind);
      const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        try {
          await this.podControl.createPod(namespace, template, parent, reference);
        } catch (failure) {
          // Creations fail anyway while the namespace is being deleted.
          if (!hasStatusCause(failure, NAMESPACE_TERMINATING_CAUSE)) throw failure;
        }
      });
      // Pods never attempted will not be observed: stop expecting them.
      for (let skipped = count - successes; skipped > 0; skipped--) this.expectations.creationObserved(key);
      if (error !== undefined) throw error;
      return;
    }
    if (diff === 0) return;
    const count = Math.min(diff, this.burstReplicas);
    const victims = podsToDelete(pods, this.indirectlyRelatedPods(object), count, this.now());
    this.expectations.expectDeletions(key, victims.map(podKey));
    const results = await Promise.allSettled(
      victims.map(async (pod) => {
        try {
          await this.podControl.deletePod(namespace, pod.metadata?.name ?? '', parent);
        } catch (error) {
          // The informer will not observe a deletion that did not happen.
          this.expectations.deletionObserved(key, podKey(pod));
          if (!isNotFound(error)) throw error;
        }
      }),
    );
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** The pods of every object sharing this object's controller (the Deployment's other ReplicaSets). */
  private indirectlyRelatedPods(object: T): Pod[] {
    const reference = controllerRefOf(object);
    if (reference === undefined) return [];
    const seen = new Set<string>();
    const related: Pod[] = [];
    for (const sibling of this.owners.indexer.byIndex(CONTROLLER_UID_INDEX, reference.uid)) {
      const selector = this.selectorOrUndefined(sibling);
      if (selector === undefined) continue;
      for (const pod of this.pods.lister.list(sibling.metadata?.namespace ?? '', selector)) {
        const uid = pod.metadata?.uid ?? '';
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }
}

/**
 * The `count` pods to delete: all of them when that is every pod, else the first after ranking
 * each pod by how many active related pods share its node.
 */
export function podsToDelete(
  pods: readonly Pod[],
  related: readonly Pod[],
  count: number,
  nowMs: number,
): Pod[] {
  if (count >= pods.length) return pods.slice(0, count);
  const onNode = new Map<string, number>();
  for (const pod of related) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranks = pods.map((pod) => onNode.get(pod.spec?.nodeName ?? '') ?? 0);
  return sortPodsForDeletion(pods, ranks, nowMs).slice(0, count);
}
