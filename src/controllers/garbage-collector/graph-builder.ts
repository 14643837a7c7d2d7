// The graph builder (upstream's GraphBuilder): turns the informers' events into changes of the
// dependency graph and queues what may need collecting: objects whose owners went away or
// changed, owners not yet seen (to check they exist), owners waiting for their dependents to be
// deleted (foreground) or orphaned. Events are applied synchronously as informers deliver them,
// which is what upstream's single-threaded processGraphChanges amounts to here.
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import type { EventRecorder } from '../../client/events/index.js';
import { type DeletedFinalStateUnknown, type EventHandler, objectOf } from '../../client/informers/index.js';
import type { ApiObject, ResourceRef } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/workqueue/index.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { DependencyGraph, GraphNode } from './graph.js';
import {
  compareIdentities,
  formatIdentity,
  identityKey,
  identityOfReference,
  isBlocking,
  matchesCoordinates,
  type ObjectIdentity,
  sameIdentity,
  sameReference,
} from './object-identity.js';
import { apiVersionOf } from './resources.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_DELETION_FINALIZER = 'foregroundDeletion';

export interface GraphEvent {
  readonly type: 'add' | 'update' | 'delete';
  readonly object: ApiObject;
  /** The previous state, for updates. */
  readonly oldObject?: ApiObject;
  /** The resource's apiVersion and kind as the informer serves it. */
  readonly apiVersion: string;
  readonly kind: string;
  /** Made up by the collector after the apiserver said the object is gone, not seen by an informer. */
  readonly virtual?: boolean;
}

/** The queues the builder fills, keyed by uid. */
export interface GraphQueues {
  readonly attemptToDelete: RateLimitingQueue<string>;
  readonly attemptToOrphan: RateLimitingQueue<string>;
}

type Meta = NonNullable<ApiObject['metadata']>;

function beingDeleted(meta: Meta | undefined): boolean {
  return meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
}

function hasFinalizer(meta: Meta | undefined, finalizer: string): boolean {
  return (meta?.finalizers ?? []).includes(finalizer);
}

/** The object is being deleted with `finalizer`, and was not (with it) before this event. */
function deletionStartsWithFinalizer(
  oldObject: ApiObject | undefined,
  meta: Meta | undefined,
  finalizer: string,
): boolean {
  if (!beingDeleted(meta) || !hasFinalizer(meta, finalizer)) return false;
  if (oldObject === undefined) return true;
  return !beingDeleted(oldObject.metadata) || !hasFinalizer(oldObject.metadata, finalizer);
}

/** Owner references added, removed and changed (same uid, other fields) between two lists. */
function referencesDiffs(
  old: readonly OwnerReference[],
  current: readonly OwnerReference[],
): {
  added: OwnerReference[];
  removed: OwnerReference[];
  changed: { oldRef: OwnerReference; newRef: OwnerReference }[];
} {
  const oldByUid = new Map(old.map((ref) => [ref.uid, ref]));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  for (const ref of current) {
    const previous = oldByUid.get(ref.uid);
    if (previous === undefined) {
      added.push(ref);
      continue;
    }
    if (!sameReference(previous, ref)) changed.push({ oldRef: previous, newRef: ref });
    oldByUid.delete(ref.uid);
  }
  return { added, removed: [...oldByUid.values()], changed };
}

/**
 * Splits dependents into those whose reference to `owner`'s uid matches its coordinates (and
 * namespace) and those whose reference does not; a dependent with both kinds lands in both.
 */
export function partitionDependents(
  dependents: Iterable<GraphNode>,
  owner: ObjectIdentity,
): [matching: GraphNode[], nonmatching: GraphNode[]] {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  const ownerIsNamespaced = owner.namespace !== '';
  for (const dependent of dependents) {
    let match = false;
    let mismatch = false;
    if (ownerIsNamespaced && owner.namespace !== dependent.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dependent.owners) {
        if (ref.uid !== owner.uid) continue;
        if (matchesCoordinates(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dependent);
    if (mismatch) nonmatching.push(dependent);
  }
  return [matching, nonmatching];
}

/**
 * Another identity the dependents give the owner with `absent`'s uid: the first following
 * `absent` in identity order, else the first of all; undefined when there is none.
 */
export function alternateOwnerIdentity(
  dependents: readonly GraphNode[],
  absent: ObjectIdentity,
): ObjectIdentity | undefined {
  const absentIsClusterScoped = absent.namespace === '';
  const seen = new Set([identityKey(absent)]);
  let first: ObjectIdentity | undefined;
  let firstFollowing: ObjectIdentity | undefined;
  for (const dependent of dependents) {
    for (const ref of dependent.owners) {
      if (ref.uid !== absent.uid) continue;
      if (
        matchesCoordinates(ref, absent) &&
        (absentIsClusterScoped || absent.namespace === dependent.identity.namespace)
      ) {
        continue;
      }
      let candidate = identityOfReference(ref, dependent.identity.namespace);
      // This apiVersion and kind are known to be cluster-scoped.
      if (absentIsClusterScoped && ref.apiVersion === absent.apiVersion && ref.kind === absent.kind) {
        candidate = { ...candidate, namespace: '' };
      }
      const key = identityKey(candidate);
      if (seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || compareIdentities(candidate, first) < 0) first = candidate;
      if (
        compareIdentities(absent, candidate) < 0 &&
        (firstFollowing === undefined || compareIdentities(candidate, firstFollowing) < 0)
      ) {
        firstFollowing = candidate;
      }
    }
  }
  return firstFollowing ?? first;
}

export class GraphBuilder {
  readonly graph = new DependencyGraph();
  readonly absentOwners = new AbsentOwnerCache();

  constructor(
    private readonly queues: GraphQueues,
    private readonly recorder: EventRecorder,
  ) {}

  /** The informer handler feeding one resource's events into the graph. */
  handlerFor(ref: ResourceRef): EventHandler<ApiObject> {
    const apiVersion = apiVersionOf(ref);
    const { kind } = ref;
    return {
      onAdd: (object) => this.process({ type: 'add', object, apiVersion, kind }),
      onUpdate: (oldObject, object) => this.process({ type: 'update', object, oldObject, apiVersion, kind }),
      onDelete: (deleted: ApiObject | DeletedFinalStateUnknown<ApiObject>) =>
        this.process({ type: 'delete', object: objectOf(deleted), apiVersion, kind }),
    };
  }

  /** The apiserver says this object does not exist: drop it from the graph as if deleted. */
  enqueueVirtualDeleteEvent(identity: ObjectIdentity): void {
    const { apiVersion, kind, name, uid, namespace } = identity;
    this.process({
      type: 'delete',
      virtual: true,
      apiVersion,
      kind,
      object: { apiVersion, kind, metadata: { name, uid, ...(namespace ? { namespace } : {}) } },
    });
  }

  process(event: GraphEvent): void {
    const meta = event.object.metadata;
    const uid = meta?.uid;
    if (!uid) return;
    const observed: ObjectIdentity = {
      apiVersion: event.apiVersion,
      kind: event.kind,
      name: meta.name ?? '',
      uid,
      namespace: meta.namespace ?? '',
    };
    const existing = this.graph.get(uid);
    if (existing !== undefined && !event.virtual && existing.virtual) {
      // First sight of an object known so far only from references to it.
      if (!sameIdentity(observed, existing.identity)) {
        // Dependents that named it otherwise may hold invalid references: have them checked.
        const [, potentiallyInvalid] = partitionDependents(existing.dependents, observed);
        for (const dependent of potentiallyInvalid) {
          if (observed.namespace !== '' && dependent.identity.namespace !== observed.namespace) {
            this.reportInvalidNamespaceOwnerRef(dependent, uid);
          }
          this.queues.attemptToDelete.add(dependent.identity.uid);
        }
        existing.identity = observed;
      }
      existing.virtual = false;
    }
    if (event.type === 'delete') {
      if (existing !== undefined) this.processDelete(event, observed, existing);
      return;
    }
    const owners = meta.ownerReferences ?? [];
    if (existing === undefined) {
      const deleting = beingDeleted(meta);
      const node = new GraphNode(
        observed,
        owners,
        false,
        deleting,
        deleting && hasFinalizer(meta, FOREGROUND_DELETION_FINALIZER),
      );
      this.graph.set(node);
      this.addDependentToOwners(node, owners);
      this.processTransitions(event.oldObject, meta, node);
      return;
    }
    if (
      !event.virtual &&
      (existing.identity.apiVersion !== event.apiVersion || existing.identity.kind !== event.kind)
    ) {
      existing.identity = { ...existing.identity, apiVersion: event.apiVersion, kind: event.kind };
    }
    const { added, removed, changed } = referencesDiffs(existing.owners, owners);
    if (added.length > 0 || removed.length > 0 || changed.length > 0) {
      // Owners waiting on this dependent may be free to go now.
      this.addUnblockedOwnersToDeleteQueue(removed, changed);
      existing.owners = owners;
      this.addDependentToOwners(existing, added);
      this.removeDependentFromOwners(existing, removed);
    }
    if (beingDeleted(meta)) existing.beingDeleted = true;
    this.processTransitions(event.oldObject, meta, existing);
  }

  private processDelete(event: GraphEvent, deleted: ObjectIdentity, existing: GraphNode): void {
    if (event.virtual) {
      if (existing.virtual) {
        // Not sure of a virtual node's coordinates: dependents naming it otherwise keep it alive.
        const [matching, nonmatching] = partitionDependents(existing.dependents, deleted);
        if (nonmatching.length > 0) {
          if (matching.length > 0) {
            this.absentOwners.add(deleted);
            for (const dependent of matching) this.queues.attemptToDelete.add(dependent.identity.uid);
          }
          if (sameIdentity(existing.identity, deleted)) {
            // Try the next identity the remaining dependents give it.
            const replacement = alternateOwnerIdentity(nonmatching, deleted);
            if (replacement !== undefined) {
              existing.identity = replacement;
              this.queues.attemptToDelete.addRateLimited(existing.identity.uid);
            }
          }
          return;
        }
      } else if (!sameIdentity(existing.identity, deleted)) {
        // An observed object stays; only dependents naming the absent identity are checked.
        const [matching] = partitionDependents(existing.dependents, deleted);
        if (matching.length > 0) {
          this.absentOwners.add(deleted);
          for (const dependent of matching) this.queues.attemptToDelete.add(dependent.identity.uid);
        }
        return;
      }
    }
    this.removeNode(existing);
    if (existing.dependentCount > 0) this.absentOwners.add(deleted);
    for (const dependent of existing.dependents) this.queues.attemptToDelete.add(dependent.identity.uid);
    for (const owner of existing.owners) {
      const ownerNode = this.graph.get(owner.uid);
      // An owner deleting in the foreground may have been waiting for this one.
      if (ownerNode?.deletingDependents) this.queues.attemptToDelete.add(owner.uid);
    }
  }

  /**
   * Links the node to its owners, creating virtual nodes (queued for a check that they exist)
   * for owners not in the graph, and queues the node itself when a reference looks invalid.
   */
  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.graph.get(owner.uid);
      if (ownerNode === undefined) {
        ownerNode = new GraphNode(identityOfReference(owner, node.identity.namespace), [], true);
        this.graph.set(ownerNode);
        ownerNode.addDependent(node);
        this.queues.attemptToDelete.add(owner.uid);
        continue;
      }
      ownerNode.addDependent(node);
      if (potentiallyInvalid) continue;
      const ownerIdentity = ownerNode.identity;
      const ownerIsNamespaced = ownerIdentity.namespace !== '';
      if (ownerIsNamespaced && ownerIdentity.namespace !== node.identity.namespace) {
        if (!ownerNode.virtual) this.reportInvalidNamespaceOwnerRef(node, owner.uid);
        potentiallyInvalid = true;
      } else if (!matchesCoordinates(owner, ownerIdentity)) {
        potentiallyInvalid = true;
      } else if (!ownerIsNamespaced && node.identity.namespace !== '' && ownerNode.virtual) {
        // Possibly a namespaced owner missing and named by a cluster-scoped dependent: verify.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.queues.attemptToDelete.add(node.identity.uid);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.graph.get(owner.uid)?.deleteDependent(node);
  }

  private removeNode(node: GraphNode): void {
    this.graph.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
  }

  /** A blocking reference removed or turned non-blocking: its owner may be done waiting. */
  private addUnblockedOwnersToDeleteQueue(
    removed: readonly OwnerReference[],
    changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[],
  ): void {
    for (const ref of removed) {
      if (isBlocking(ref) && this.graph.get(ref.uid)) this.queues.attemptToDelete.add(ref.uid);
    }
    for (const { oldRef, newRef } of changed) {
      if (isBlocking(oldRef) && !isBlocking(newRef) && this.graph.get(newRef.uid)) {
        this.queues.attemptToDelete.add(newRef.uid);
      }
    }
  }

  /** An owner starting an orphaning or a foreground deletion goes to the matching queue. */
  private processTransitions(oldObject: ApiObject | undefined, meta: Meta, node: GraphNode): void {
    if (deletionStartsWithFinalizer(oldObject, meta, ORPHAN_FINALIZER)) {
      this.queues.attemptToOrphan.add(node.identity.uid);
      return;
    }
    if (deletionStartsWithFinalizer(oldObject, meta, FOREGROUND_DELETION_FINALIZER)) {
      node.deletingDependents = true;
      for (const dependent of node.dependents) this.queues.attemptToDelete.add(dependent.identity.uid);
      this.queues.attemptToDelete.add(node.identity.uid);
    }
  }

  private reportInvalidNamespaceOwnerRef(node: GraphNode, ownerUid: string): void {
    const ref = node.owners.find((owner) => owner.uid === ownerUid);
    if (ref === undefined) return;
    const { apiVersion, kind, namespace, name, uid } = node.identity;
    const invalid = identityOfReference(ref, namespace);
    this.recorder.event(
      { apiVersion, kind, namespace, name, uid },
      'Warning',
      'OwnerRefInvalidNamespace',
      `ownerRef ${formatIdentity(invalid)} does not exist in namespace ${JSON.stringify(namespace)}`,
    );
  }
}
