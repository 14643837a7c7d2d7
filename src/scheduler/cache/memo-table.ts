// Per-node results reused across cycles (match counts by selector and the like). A table holds one
// value per position of the snapshot's node list, valid while that position still holds the same
// NodeInfo object: the snapshot replaces a node's info with a fresh copy whenever the node or its
// pods change, so a stale value can never be read, and no invalidation is needed.
import type { NodeInfo } from './node-info.js';

export class MemoTable<T> {
  private owners: (NodeInfo | undefined)[] = [];
  private values: T[] = [];

  /** The value for the node at `index` of the snapshot list, computing it if stale. */
  get(index: number, nodeInfo: NodeInfo, compute: (nodeInfo: NodeInfo) => T): T {
    if (this.owners[index] === nodeInfo) return this.values[index]!;
    const value = compute(nodeInfo);
    this.owners[index] = nodeInfo;
    this.values[index] = value;
    return value;
  }
}

/** Tables by key; cleared wholesale past a bound so unused keys cannot pile up. */
export class MemoTables {
  private readonly tables = new Map<string, MemoTable<unknown>>();

  constructor(private readonly limit = 2_000) {}

  table<T>(key: string): MemoTable<T> {
    let table = this.tables.get(key);
    if (table === undefined) {
      if (this.tables.size >= this.limit) this.tables.clear();
      table = new MemoTable<unknown>();
      this.tables.set(key, table);
    }
    return table as MemoTable<T>;
  }

  clear(): void {
    this.tables.clear();
  }
}

/**
 * A per-node function remembered under `key` when `memo` is given (the caller then passes positions
 * in the snapshot's node list); without a memo it just computes.
 */
export function perNode<T>(
  memo: MemoTables | undefined,
  key: string,
  compute: (nodeInfo: NodeInfo) => T,
): (index: number, nodeInfo: NodeInfo) => T {
  if (memo === undefined) return (_index, nodeInfo) => compute(nodeInfo);
  const table = memo.table<T>(key);
  return (index, nodeInfo) => table.get(index, nodeInfo, compute);
}
