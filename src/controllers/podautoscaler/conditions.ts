// The HPA's status conditions (horizontal.go's setCondition): AbleToScale, ScalingActive and
// ScalingLimited, each added once and moved to a new lastTransitionTime only when its status flips.
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
} from '../../api/types/autoscaling-v2.generated.js';

export type HpaConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

export function setCondition(
  hpa: HorizontalPodAutoscaler,
  type: HpaConditionType,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: string,
): void {
  hpa.status ??= { desiredReplicas: 0 };
  hpa.status.conditions ??= [];
  const conditions: HorizontalPodAutoscalerCondition[] = hpa.status.conditions;
  let existing = conditions.find((condition) => condition.type === type);
  if (existing === undefined) {
    existing = { type, status: '' };
    conditions.push(existing);
  }
  if (existing.status !== status) existing.lastTransitionTime = now;
  existing.status = status;
  existing.reason = reason;
  existing.message = message;
}
