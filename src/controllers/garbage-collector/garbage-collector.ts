// The garbage collector (pkg/controller/garbagecollector): deletes objects whose owners are all
// gone, deletes the dependents of owners deleted in the foreground before letting the owner go,
// and strips the references to owners deleted with orphaning. The graph builder feeds two
// queues of uids; workers act on them through the API as `generic-garbage-collector`.

import { servedCustomResources } from '../../api/resources/custom-resources.js';
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import type { HandlerRegistration } from '../../client/informers/index.js';
import { waitForCacheSync } from '../../client/informers/index.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { ApiObject, ResourceRef } from '../../client/types.js';
import { RateLimitingQueue } from '../../client/workqueue/index.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import type { GraphNode } from './graph.js';
import { FOREGROUND_DELETION_FINALIZER, GraphBuilder, ORPHAN_FINALIZER } from './graph-builder.js';
import { formatIdentity, identityOfReference, type ObjectIdentity } from './object-identity.js';
import {
  deleteOwnerRefMergePatch,
  deleteOwnerRefStrategicMergePatch,
  errorText,
  GarbageCollectorOperations,
  NamespacedOwnerOfClusterScopedObject,
  type PropagationPolicy,
  unblockOwnerReferencesMergePatch,
  unblockOwnerReferencesStrategicMergePatch,
} from './operations.js';
import { addCustomResourceMapping, deletableResources } from './resources.js';

export const SERVICE_ACCOUNT = 'generic-garbage-collector';
const EVENT_COMPONENT = 'garbage-collector-controller';

export interface GarbageCollectorOptions {
  /** Workers per queue (`--concurrent-gc-syncs`, 20). */
  readonly workers?: number;
  /** How long to wait for every informer before collecting anyway (upstream: 30 s). */
  readonly initialSyncTimeoutMs?: number;
  readonly log?: (message: string) => void;
}

type WorkerAction = 'forget' | 'requeue';

/** What attemptToDeleteItem ended with, when it did not throw. */
type DeleteOutcome = 'done' | 'virtual-delete' | 'namespaced-owner-of-cluster-scoped';

interface ClassifiedReferences {
  /** Owners that exist and are not waiting for their dependents. */
  readonly solid: OwnerReference[];
  /** Owners that do not exist (or exist with another uid). */
  readonly dangling: OwnerReference[];
  /** Owners being deleted in the foreground. */
  readonly waiting: OwnerReference[];
}

function hasFinalizer(object: ApiObject, finalizer: string): boolean {
  return (object.metadata?.finalizers ?? []).includes(finalizer);
}

export class GarbageCollector implements RunnableController {
  readonly attemptToDelete = new RateLimitingQueue<string>();
  readonly attemptToOrphan = new RateLimitingQueue<string>();
  readonly builder: GraphBuilder;
  private readonly operations: GarbageCollectorOperations;
  private readonly registrations: HandlerRegistration[] = [];
  private readonly workers: number;
  private readonly initialSyncTimeoutMs: number;
  private readonly log: (message: string) => void;

  constructor(context: ControllerContext, options: GarbageCollectorOptions = {}) {
    this.workers = Math.max(1, options.workers ?? 20);
    this.initialSyncTimeoutMs = options.initialSyncTimeoutMs ?? 30_000;
    this.log = options.log ?? ((message) => console.error(message));
    this.operations = new GarbageCollectorOperations(context.clientFor(SERVICE_ACCOUNT));
    this.builder = new GraphBuilder(
      { attemptToDelete: this.attemptToDelete, attemptToOrphan: this.attemptToOrphan },
      context.recorderFor(SERVICE_ACCOUNT, EVENT_COMPONENT),
    );
    this.context = context;
    // One monitor per deletable resource, on the manager's shared informers.
    for (const ref of deletableResources()) this.monitor(ref);
    // Custom resources are monitored once their CRD is established (upstream resyncs its monitors
    // with discovery), and their kinds join the REST mapping.
    context.informers.informerFor<ApiObject>(CUSTOM_RESOURCE_DEFINITIONS).addEventHandler({
      onAdd: (crd) => this.monitorCustomResources(crd),
      onUpdate: (_old, crd) => this.monitorCustomResources(crd),
    });
  }

  private readonly context: ControllerContext;
  private readonly monitored = new Set<string>();
  private signal?: AbortSignal;

  private monitor(ref: ResourceRef): void {
    const id = `${ref.group}/${ref.resource}`;
    if (this.monitored.has(id)) return;
    this.monitored.add(id);
    const informer = this.context.informers.informerFor<ApiObject>(ref);
    this.registrations.push(informer.addEventHandler(this.builder.handlerFor(ref)));
    // Asked for while running: start it now (the factory starts only informers not running yet).
    if (this.signal && !this.signal.aborted) this.context.informers.start(this.signal);
  }

  private monitorCustomResources(crd: ApiObject): void {
    const refs = servedCustomResources(crd);
    for (const ref of refs) addCustomResourceMapping(ref);
    if (refs[0]) this.monitor(refs[0]);
  }

  async run(signal: AbortSignal): Promise<void> {
    const stop = (): void => {
      this.attemptToDelete.shutDown();
      this.attemptToOrphan.shutDown();
    };
    if (signal.aborted) return stop();
    this.signal = signal;
    signal.addEventListener('abort', stop, { once: true });
    const synced = await waitForCacheSync(
      AbortSignal.any([signal, AbortSignal.timeout(this.initialSyncTimeoutMs)]),
      this.registrations,
    );
    if (signal.aborted) return;
    if (!synced) this.log('garbage collector: not all resource monitors could be synced, proceeding anyways');
    const loops: Promise<void>[] = [];
    for (let i = 0; i < this.workers; i++) {
      loops.push(this.worker(signal, this.attemptToDelete, (uid) => this.attemptToDeleteWorker(uid)));
      loops.push(this.worker(signal, this.attemptToOrphan, (uid) => this.attemptToOrphanWorker(uid)));
    }
    await Promise.all(loops);
  }

  private async worker(
    signal: AbortSignal,
    queue: RateLimitingQueue<string>,
    handle: (uid: string) => Promise<WorkerAction>,
  ): Promise<void> {
    for (;;) {
      const uid = await queue.get();
      if (uid === undefined) return;
      if (signal.aborted) {
        queue.done(uid);
        return;
      }
      try {
        const action = await handle(uid);
        if (action === 'forget') queue.forget(uid);
        else queue.addRateLimited(uid);
      } catch (error) {
        // Handlers catch what they expect; anything else must not stop the worker.
        this.log(`garbage collector: processing ${uid} failed: ${errorText(error)}`);
        queue.addRateLimited(uid);
      } finally {
        queue.done(uid);
      }
    }
  }

  // ---- attemptToDelete --------------------------------------------------------------------

  private async attemptToDeleteWorker(uid: string): Promise<WorkerAction> {
    const node = this.builder.graph.get(uid);
    // Gone from the graph: its delete was observed (or verified) meanwhile.
    if (node === undefined) return 'forget';
    let outcome: DeleteOutcome;
    try {
      outcome = await this.attemptToDeleteItem(node);
    } catch (error) {
      if (error instanceof NamespacedOwnerOfClusterScopedObject) return 'forget';
      this.log(`garbage collector: error syncing item ${formatIdentity(node.identity)}: ${errorText(error)}`);
      return 'requeue';
    }
    if (outcome !== 'done') return 'forget';
    // A virtual node is checked again until an informer shows the object (issue 56121).
    return node.virtual ? 'requeue' : 'forget';
  }

  /**
   * Looks up the live object and deletes it if it still has this uid, is not waiting for its
   * own dependents, and all its owners are gone (or waiting for their dependents).
   */
  private async attemptToDeleteItem(item: GraphNode): Promise<DeleteOutcome> {
    // Being deleted is a one-way trip: wait for the final delete, then handle the dependents.
    if (item.beingDeleted && !item.deletingDependents) return 'done';
    const identity = item.identity;
    const latest = await this.operations.get(identity);
    if (latest === undefined || latest.metadata?.uid !== identity.uid) {
      // A virtual owner that does not exist, or an object deleted before its informer said so.
      this.builder.enqueueVirtualDeleteEvent(identity);
      return 'virtual-delete';
    }
    if (item.deletingDependents) {
      await this.processDeletingDependentsItem(item);
      return 'done';
    }
    const ownerReferences = latest.metadata?.ownerReferences ?? [];
    if (ownerReferences.length === 0) return 'done';

    const { solid, dangling, waiting } = await this.classifyReferences(item, ownerReferences);
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // References to owners waiting for their dependents must go too, or those owners would
      // wait forever for an object that stays.
      const ownerUids = [...dangling, ...waiting].map((ref) => ref.uid);
      await this.operations.patch(
        identity,
        deleteOwnerRefStrategicMergePatch(identity.uid, ownerUids),
        (live) => deleteOwnerRefMergePatch(live, ownerUids),
      );
      return 'done';
    }
    if (waiting.length > 0 && item.dependentCount > 0) {
      for (const dependent of item.dependents) {
        if (!dependent.deletingDependents) continue;
        // A dependent also deleting in the foreground may close a cycle: stop blocking owners.
        this.log(
          `garbage collector: processing item ${formatIdentity(identity)}, some of its owners and its dependent ${formatIdentity(dependent.identity)} have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the item is going to be deleted with Foreground`,
        );
        await this.operations.patch(
          identity,
          unblockOwnerReferencesStrategicMergePatch(identity.uid, item.owners),
          (live) => unblockOwnerReferencesMergePatch(live, item.owners),
        );
        break;
      }
      // Its own dependents go first: delete it in the foreground too.
      return this.deleteItem(item, latest, 'Foreground');
    }
    // No owner left that holds it: collect it, honouring a propagation finalizer it carries.
    const policy: PropagationPolicy = hasFinalizer(latest, ORPHAN_FINALIZER)
      ? 'Orphan'
      : hasFinalizer(latest, FOREGROUND_DELETION_FINALIZER)
        ? 'Foreground'
        : 'Background';
    return this.deleteItem(item, latest, policy);
  }

  private async deleteItem(
    item: GraphNode,
    latest: ApiObject,
    policy: PropagationPolicy,
  ): Promise<DeleteOutcome> {
    const meta = latest.metadata ?? {};
    try {
      await this.operations.delete(
        item.identity,
        meta.resourceVersion ?? '',
        meta.ownerReferences ?? [],
        policy,
      );
      return 'done';
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.builder.enqueueVirtualDeleteEvent(item.identity);
      return 'virtual-delete';
    }
  }

  /** An owner deleting in the foreground: let it go once no dependent blocks it. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.operations.removeFinalizer(item.identity, FOREGROUND_DELETION_FINALIZER);
      return;
    }
    for (const dependent of blocking) {
      if (!dependent.deletingDependents) this.attemptToDelete.add(dependent.identity.uid);
    }
  }

  private async classifyReferences(
    item: GraphNode,
    references: readonly OwnerReference[],
  ): Promise<ClassifiedReferences> {
    const result: ClassifiedReferences = { solid: [], dangling: [], waiting: [] };
    for (const reference of references) {
      const owner = await this.liveOwner(reference, item);
      if (owner === undefined) result.dangling.push(reference);
      else if (owner.metadata?.deletionTimestamp && hasFinalizer(owner, FOREGROUND_DELETION_FINALIZER)) {
        result.waiting.push(reference);
      } else result.solid.push(reference);
    }
    return result;
  }

  /**
   * The owner a reference points to as the apiserver has it, or undefined when it is dangling:
   * missing, or present with another uid (remembered in the absent-owner cache).
   */
  private async liveOwner(reference: OwnerReference, item: GraphNode): Promise<ApiObject | undefined> {
    const { absentOwners } = this.builder;
    const clusterScopedKey = identityOfReference(reference, '');
    if (absentOwners.has(clusterScopedKey)) return undefined;
    const namespacedKey = identityOfReference(reference, item.identity.namespace);
    if (absentOwners.has(namespacedKey)) return undefined;
    const namespaced = this.operations.isNamespaced(reference.apiVersion, reference.kind);
    if (item.identity.namespace === '' && namespaced) throw new NamespacedOwnerOfClusterScopedObject();
    const ownerIdentity: ObjectIdentity = namespaced ? namespacedKey : clusterScopedKey;
    const owner = await this.operations.get(ownerIdentity);
    if (owner === undefined || owner.metadata?.uid !== reference.uid) {
      absentOwners.add(ownerIdentity);
      return undefined;
    }
    return owner;
  }

  // ---- attemptToOrphan --------------------------------------------------------------------

  /** Strips the owner's dependents of their references to it, then drops its `orphan` finalizer. */
  private async attemptToOrphanWorker(uid: string): Promise<WorkerAction> {
    const owner = this.builder.graph.get(uid);
    if (owner === undefined) return 'forget';
    const identity = owner.identity;
    try {
      await this.orphanDependents(identity, [...owner.dependents]);
    } catch (error) {
      this.log(
        `garbage collector: orphanDependents for ${formatIdentity(identity)} failed with ${errorText(error)}`,
      );
      return 'requeue';
    }
    try {
      await this.operations.removeFinalizer(identity, ORPHAN_FINALIZER);
    } catch (error) {
      this.log(
        `garbage collector: removeOrphanFinalizer for ${formatIdentity(identity)} failed with ${errorText(error)}`,
      );
      return 'requeue';
    }
    return 'forget';
  }

  private async orphanDependents(owner: ObjectIdentity, dependents: readonly GraphNode[]): Promise<void> {
    const failures: string[] = [];
    await Promise.all(
      dependents.map(async (dependent) => {
        const identity = dependent.identity;
        try {
          await this.operations.patch(
            identity,
            deleteOwnerRefStrategicMergePatch(identity.uid, [owner.uid]),
            (live) => deleteOwnerRefMergePatch(live, [owner.uid]),
          );
        } catch (error) {
          if (!isNotFound(error))
            failures.push(`orphaning ${formatIdentity(identity)} failed, ${errorText(error)}`);
        }
      }),
    );
    if (failures.length > 0) {
      const aggregate = failures.length === 1 ? failures[0] : `[${failures.join(', ')}]`;
      throw new Error(
        `failed to orphan dependents of owner ${formatIdentity(owner)}, got errors: ${aggregate}`,
      );
    }
  }
}

export const garbageCollectorController: ControllerDescriptor = {
  name: 'garbage-collector-controller',
  create: (context) => new GarbageCollector(context),
};
