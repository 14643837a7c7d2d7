// metav1.Condition lists as apimachinery's meta helpers read and write them (FindStatusCondition,
// SetStatusCondition): one condition per type, lastTransitionTime moving only when status flips.
import type { Condition } from './types/meta-v1.generated.js';

/** What a writer states; the transition time is the helper's business. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/**
 * Sets `update` in `conditions` (mutating the list): a new type is appended with `now` as its
 * transition time; an existing one changes its fields, and its transition time only when its
 * status changes. True when anything changed.
 */
export function setStatusCondition(conditions: Condition[], update: ConditionUpdate, now: string): boolean {
  const existing = findStatusCondition(conditions, update.type);
  if (!existing) {
    conditions.push({ ...withoutZeroGeneration(update), lastTransitionTime: now });
    return true;
  }
  let changed = false;
  if (existing.status !== update.status) {
    existing.status = update.status;
    existing.lastTransitionTime = now;
    changed = true;
  }
  if (existing.reason !== update.reason) {
    existing.reason = update.reason;
    changed = true;
  }
  if (existing.message !== update.message) {
    existing.message = update.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (update.observedGeneration ?? 0)) {
    if (update.observedGeneration) existing.observedGeneration = update.observedGeneration;
    else delete existing.observedGeneration;
    changed = true;
  }
  return changed;
}

/** observedGeneration is `omitempty`: a zero is not written. */
function withoutZeroGeneration(update: ConditionUpdate): ConditionUpdate {
  if (update.observedGeneration) return { ...update };
  const { observedGeneration: _zero, ...rest } = update;
  return rest;
}
