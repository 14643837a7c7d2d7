// The `endpoints.kubernetes.io/last-change-trigger-time` of a sync (endpointslice util's
// TriggerTimeTracker): the earliest change since the previous sync of the service — a pod's Ready
// transition or the service's creation — so kube-proxy can measure programming latency.
import { podCondition } from '../../api/pod-conditions.js';
import type { Pod, Service } from '../../api/types/core-v1.generated.js';

interface ServiceState {
  lastServiceTriggerTime: number;
  lastPodTriggerTimes: Map<string, number>;
}

export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /**
   * The trigger time (ms) of this sync, or undefined when nothing changed. A service seen for
   * the first time triggers at its creation. Updates the state even when the sync writes nothing.
   */
  compute(namespace: string, service: Service, pods: readonly Pod[]): number | undefined {
    const key = `${namespace}/${service.metadata?.name ?? ''}`;
    const state = this.states.get(key);
    let earliest: number | undefined;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const time = parseTime(podCondition(pod.status, 'Ready')?.lastTransitionTime);
      if (time === undefined) continue;
      const name = pod.metadata?.name ?? '';
      podTimes.set(name, time);
      if (time > (state?.lastPodTriggerTimes.get(name) ?? Number.NEGATIVE_INFINITY)) {
        earliest = earliest === undefined ? time : Math.min(earliest, time);
      }
    }
    const serviceTime = parseTime(service.metadata?.creationTimestamp) ?? 0;
    if (serviceTime > (state?.lastServiceTriggerTime ?? Number.NEGATIVE_INFINITY)) {
      earliest = earliest === undefined ? serviceTime : Math.min(earliest, serviceTime);
    }
    this.states.set(key, { lastServiceTriggerTime: serviceTime, lastPodTriggerTimes: podTimes });
    return state === undefined ? serviceTime : earliest;
  }

  deleteService(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}

function parseTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The annotation's value: RFC 3339 with nanoseconds, trailing zeros trimmed (Go's RFC3339Nano). */
export function formatTriggerTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}
