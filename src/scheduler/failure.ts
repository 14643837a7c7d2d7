// What the scheduler reports, as data for whoever posts it: the FailedScheduling event and the
// PodScheduled=False condition of a failed attempt (with nominatedNodeName when preemption chose
// a node), the Scheduled event of a binding, and what preemption writes on its victims.
import type { Pod, PodCondition } from '../api/types/core-v1.generated.js';

/** Event notes are cut to 1024 bytes (validation.NoteLengthLimit), ending in " ...". */
export const NOTE_LENGTH_LIMIT = 1024;

export interface SchedulingEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  /** events.k8s.io action: Scheduling, Binding, Preempting. */
  readonly action: string;
  readonly note: string;
  /** The other object involved (the preemptor, for a victim's Preempted event). */
  readonly related?: Pod;
}

export interface SchedulingFailure {
  readonly pod: Pod;
  /** PodScheduled=False with reason Unschedulable (did not fit) or SchedulerError. */
  readonly condition: PodCondition;
  readonly event: SchedulingEvent;
  /** Set when status.nominatedNodeName must change ('' clears it); undefined leaves it. */
  readonly nominatedNodeName: string | undefined;
}

export function truncateMessage(message: string): string {
  if (Buffer.byteLength(message) <= NOTE_LENGTH_LIMIT) return message;
  const suffix = ' ...';
  return (
    Buffer.from(message)
      .subarray(0, NOTE_LENGTH_LIMIT - suffix.length)
      .toString() + suffix
  );
}

/** RFC 3339 with seconds, as metav1.Time serialises. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function podScheduledCondition(
  reason: 'Unschedulable' | 'SchedulerError',
  message: string,
  now: number,
): PodCondition {
  return { type: 'PodScheduled', status: 'False', reason, message, lastTransitionTime: rfc3339(now) };
}

export function failedSchedulingEvent(message: string): SchedulingEvent {
  return {
    type: 'Warning',
    reason: 'FailedScheduling',
    action: 'Scheduling',
    note: truncateMessage(message),
  };
}

export function scheduledEvent(pod: Pod, nodeName: string): SchedulingEvent {
  const name = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  return {
    type: 'Normal',
    reason: 'Scheduled',
    action: 'Binding',
    note: `Successfully assigned ${name} to ${nodeName}`,
  };
}

export function skipDeletingPodEvent(pod: Pod): SchedulingEvent {
  const name = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  return {
    type: 'Warning',
    reason: 'FailedScheduling',
    action: 'Scheduling',
    note: `skip schedule deleting pod: ${name}`,
  };
}

/** The Preempted event recorded on a victim. */
export function preemptedEvent(preemptor: Pod, nodeName: string): SchedulingEvent {
  return {
    type: 'Normal',
    reason: 'Preempted',
    action: 'Preempting',
    note: `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${nodeName}`,
    related: preemptor,
  };
}

/** The condition added to a victim before it is deleted. */
export function disruptionTargetCondition(preemptor: Pod, now: number): PodCondition {
  const scheduler = preemptor.spec?.schedulerName || 'default-scheduler';
  return {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'PreemptionByScheduler',
    message: `${scheduler}: preempting to accommodate a higher priority pod`,
    lastTransitionTime: rfc3339(now),
  };
}
