// The view of the cluster one scheduling cycle works on (the scheduler's cache.Snapshot): node
// infos by name and in node-tree order, plus the nodes whose pods have (anti-)affinity, which
// inter-pod affinity visits instead of all nodes.
import { type Aggregate, Aggregates } from './aggregates.js';
import { MemoTables } from './memo-table.js';
import type { NodeInfo } from './node-info.js';

export class Snapshot {
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityList: NodeInfo[] = [];
  /** The cache generation this snapshot reflects. */
  generation = 0;
  /** Per-node results plugins reuse across cycles, indexed like nodeInfoList. */
  readonly memo = new MemoTables();
  /** Cluster-wide tallies kept current from the changes between snapshots. */
  readonly aggregates = new Aggregates();

  /** A tally over the snapshot's nodes and pods, created by `create` when missing or too stale. */
  aggregate<T extends Aggregate>(key: string, create: () => T): T {
    return this.aggregates.get(key, this.nodeInfoList, create);
  }

  /** A snapshot of the given node infos in the given order (for tests and tools). */
  static of(nodeInfos: readonly NodeInfo[]): Snapshot {
    const snapshot = new Snapshot();
    for (const nodeInfo of nodeInfos) snapshot.nodeInfoMap.set(nodeInfo.name, nodeInfo);
    snapshot.rebuildLists();
    return snapshot;
  }

  get numNodes(): number {
    return this.nodeInfoList.length;
  }

  get(name: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(name);
  }

  /** Rebuilds the lists from the map, in the map's order. */
  rebuildLists(order?: readonly string[]): void {
    const list: NodeInfo[] = [];
    for (const name of order ?? this.nodeInfoMap.keys()) {
      const nodeInfo = this.nodeInfoMap.get(name);
      if (nodeInfo?.node) list.push(nodeInfo);
    }
    this.nodeInfoList = list;
    this.rebuildAffinityLists();
  }

  rebuildAffinityLists(): void {
    this.havePodsWithAffinityList = this.nodeInfoList.filter((info) => info.podsWithAffinity.length > 0);
    this.havePodsWithRequiredAntiAffinityList = this.nodeInfoList.filter(
      (info) => info.podsWithRequiredAntiAffinity.length > 0,
    );
  }
}
