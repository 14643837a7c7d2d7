// A pod waiting in the scheduling queue (framework.QueuedPodInfo) with its attempt history.
import type { Pod } from '../../api/types/core-v1.generated.js';
import { PodInfo } from '../cache/pod-info.js';

export class QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was added to the queue or last failed (ms); orders equal priorities. */
  timestamp: number;
  /** Scheduling attempts so far; drives the backoff. */
  attempts = 0;
  /** When the pod was first popped for scheduling (ms). */
  initialAttemptTimestamp: number | undefined;
  /** Plugins that rejected the pod in its last attempt; only their events move it back. */
  unschedulablePlugins = new Set<string>();
  /** Plugins that left the pod pending (requeued without backoff once they agree). */
  pendingPlugins = new Set<string>();
  /** The PreEnqueue plugin holding the pod out of the active queue, '' when none. */
  gatingPlugin = '';
  /** Whether the last attempt failed with an error rather than a rejection. */
  lastFailureWasError = false;

  constructor(pod: Pod | PodInfo, timestamp: number) {
    this.podInfo = pod instanceof PodInfo ? pod : new PodInfo(pod);
    this.timestamp = timestamp;
  }

  get pod(): Pod {
    return this.podInfo.pod;
  }

  get key(): string {
    return this.podInfo.key;
  }

  get gated(): boolean {
    return this.gatingPlugin !== '';
  }

  /** Replaces the pod (an update arrived while queued). */
  update(pod: Pod): void {
    this.podInfo = new PodInfo(pod);
  }
}
