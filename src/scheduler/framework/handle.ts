// What plugins may look at besides the pod and node at hand (framework.Handle): the cycle's
// snapshot, the other cluster objects the scheduler watches, the pods nominated to nodes, the
// framework itself (preemption re-runs filters) and the randomness source.
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { Snapshot } from '../cache/snapshot.js';
import type { ClusterObjects } from '../cluster-objects.js';
import type { Framework } from './framework.js';

export interface PodNominator {
  /** Pods nominated to run on the node (by earlier preemption), in nomination order. */
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  /** Whether any pod is nominated anywhere (lets filters skip the nominated-pods pass). */
  hasNominatedPods(): boolean;
}

export interface FrameworkHandle {
  /** The snapshot of the running cycle. */
  snapshot(): Snapshot;
  readonly objects: ClusterObjects;
  readonly nominator: PodNominator;
  /** The framework the plugin belongs to (available once it is built). */
  framework(): Framework;
  /** A number in [0, 1): tie-breaks and preemption offsets; injectable for tests. */
  random(): number;
  /**
   * Moves a waiting pod back to the active queue; with `onlyIfGatedBy`, only when that PreEnqueue
   * plugin is what holds it back (an event it missed while gated may have helped).
   */
  activate(pod: Pod, onlyIfGatedBy?: string): void;
}
