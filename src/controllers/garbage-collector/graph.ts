// The dependency graph: one node per object seen (or per owner referenced but not seen yet, a
// "virtual" node), linked to the nodes of the objects that name it as an owner. Only the graph
// builder changes it, synchronously, so workers always read a consistent state.
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import { isBlocking, type ObjectIdentity } from './object-identity.js';

const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set();

export class GraphNode {
  /** Created on first use: most objects own nothing, and an empty Set still costs memory. */
  private dependentSet?: Set<GraphNode>;

  constructor(
    public identity: ObjectIdentity,
    /** The object's ownerReferences as last observed (empty for virtual nodes). */
    public owners: readonly OwnerReference[],
    /** Built from a reference only; no informer has shown the object yet. */
    public virtual: boolean,
    /** The object has a deletionTimestamp: a one-way trip. */
    public beingDeleted = false,
    /** Being deleted with the `foregroundDeletion` finalizer: waits for its dependents. */
    public deletingDependents = false,
  ) {}

  get dependents(): ReadonlySet<GraphNode> {
    return this.dependentSet ?? NO_DEPENDENTS;
  }

  get dependentCount(): number {
    return this.dependentSet?.size ?? 0;
  }

  addDependent(dependent: GraphNode): void {
    this.dependentSet ??= new Set();
    this.dependentSet.add(dependent);
  }

  deleteDependent(dependent: GraphNode): void {
    this.dependentSet?.delete(dependent);
    if (this.dependentSet?.size === 0) this.dependentSet = undefined;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion set. */
  blockingDependents(): GraphNode[] {
    const uid = this.identity.uid;
    return [...this.dependents].filter((dependent) =>
      dependent.owners.some((owner) => owner.uid === uid && isBlocking(owner)),
    );
  }
}

/** Nodes by uid. */
export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  set(node: GraphNode): void {
    this.nodes.set(node.identity.uid, node);
  }

  delete(uid: string): void {
    this.nodes.delete(uid);
  }

  get size(): number {
    return this.nodes.size;
  }
}
