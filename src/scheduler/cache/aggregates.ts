// Cluster-wide tallies kept current from the snapshot's change log (pods and nodes added or
// removed since the tally last looked), so a plugin asking "how many pods matching X per topology
// domain" pays for what changed since it last asked, not for every pod on every node.
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';

type Labels = Readonly<Record<string, string>>;

export type SnapshotChange =
  | { readonly kind: 'pod'; readonly podInfo: PodInfo; readonly labels: Labels; readonly delta: 1 | -1 }
  | { readonly kind: 'node'; readonly labels: Labels; readonly delta: 1 | -1 };

/** A tally fed every change; built from scratch by replaying the whole snapshot as additions. */
export interface Aggregate {
  apply(change: SnapshotChange): void;
}

/** Changes kept before old ones are dropped (tallies older than that are rebuilt). */
const LOG_LIMIT = 100_000;
/** Tallies kept before all are dropped. */
const AGGREGATE_LIMIT = 2_000;

interface Entry {
  readonly aggregate: Aggregate;
  seq: number;
}

export class Aggregates {
  private log: SnapshotChange[] = [];
  /** The sequence number of log[0]. */
  private logStart = 0;
  private readonly entries = new Map<string, Entry>();

  get seq(): number {
    return this.logStart + this.log.length;
  }

  /** Records the difference between a node's previous and current info (either may be absent). */
  recordNodeChange(previous: NodeInfo | undefined, next: NodeInfo | undefined): void {
    if (this.entries.size === 0) {
      // Nobody to tell: later tallies start from scratch anyway.
      this.logStart += this.log.length + 1;
      this.log = [];
      return;
    }
    if (previous !== undefined && next !== undefined && sameLabels(previous.labels, next.labels)) {
      const before = new Set(previous.pods);
      for (const podInfo of next.pods) {
        if (!before.delete(podInfo)) this.log.push({ kind: 'pod', podInfo, labels: next.labels, delta: 1 });
      }
      for (const podInfo of before)
        this.log.push({ kind: 'pod', podInfo, labels: previous.labels, delta: -1 });
    } else {
      if (previous !== undefined) {
        for (const podInfo of previous.pods)
          this.log.push({ kind: 'pod', podInfo, labels: previous.labels, delta: -1 });
        this.log.push({ kind: 'node', labels: previous.labels, delta: -1 });
      }
      if (next !== undefined) {
        this.log.push({ kind: 'node', labels: next.labels, delta: 1 });
        for (const podInfo of next.pods)
          this.log.push({ kind: 'pod', podInfo, labels: next.labels, delta: 1 });
      }
    }
    if (this.log.length > LOG_LIMIT) {
      const drop = this.log.length - LOG_LIMIT / 2;
      this.log = this.log.slice(drop);
      this.logStart += drop;
    }
  }

  /** The tally under `key`, brought up to date with `nodes` (the snapshot's node list). */
  get<T extends Aggregate>(key: string, nodes: readonly NodeInfo[], create: () => T): T {
    let entry = this.entries.get(key);
    if (entry === undefined || entry.seq < this.logStart) {
      if (this.entries.size >= AGGREGATE_LIMIT) this.entries.clear();
      const aggregate = create();
      for (const nodeInfo of nodes) {
        aggregate.apply({ kind: 'node', labels: nodeInfo.labels, delta: 1 });
        for (const podInfo of nodeInfo.pods)
          aggregate.apply({ kind: 'pod', podInfo, labels: nodeInfo.labels, delta: 1 });
      }
      entry = { aggregate, seq: this.seq };
      this.entries.set(key, entry);
      return aggregate as T;
    }
    for (let index = entry.seq - this.logStart; index < this.log.length; index++)
      entry.aggregate.apply(this.log[index]!);
    entry.seq = this.seq;
    return entry.aggregate as T;
  }

  clear(): void {
    this.entries.clear();
    this.logStart += this.log.length;
    this.log = [];
  }
}

function sameLabels(a: Labels, b: Labels): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}
