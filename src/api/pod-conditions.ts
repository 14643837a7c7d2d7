// Pod conditions as pkg/api/v1/pod reads and writes them: find one, "is the pod Ready", and the
// update rule that keeps lastTransitionTime unless the status flips.
import type { Pod, PodCondition, PodStatus } from './types/core-v1.generated.js';

export function podCondition(status: PodStatus | undefined, type: string): PodCondition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}

/** The Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod.status, 'Ready')?.status === 'True';
}

/** Succeeded or Failed: its containers have stopped for good. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Sets `condition` in `status` (mutating it): lastTransitionTime becomes `now` (a metav1.Time)
 * unless the status stays the same. True when anything changed.
 */
export function updatePodCondition(status: PodStatus, condition: PodCondition, now: string): boolean {
  const next: PodCondition = { ...condition, lastTransitionTime: now };
  status.conditions ??= [];
  const conditions = status.conditions;
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  if (index < 0) {
    conditions.push(next);
    return true;
  }
  const old = conditions[index]!;
  if (next.status === old.status) next.lastTransitionTime = old.lastTransitionTime;
  conditions[index] = next;
  return !(
    next.status === old.status &&
    (next.reason ?? '') === (old.reason ?? '') &&
    (next.message ?? '') === (old.message ?? '') &&
    (next.lastProbeTime ?? '') === (old.lastProbeTime ?? '') &&
    (next.lastTransitionTime ?? '') === (old.lastTransitionTime ?? '')
  );
}
