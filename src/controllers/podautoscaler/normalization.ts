// How the HPA turns a metrics proposal into the replica count it sets (horizontal.go's
// normalizeDesiredReplicas and normalizeDesiredReplicasWithBehaviors): the stabilization window
// over recent recommendations, min/maxReplicas, and without `behavior` a scale-up of at most
// double (at least 4); with it, the scaleUp/scaleDown policies over the scale events of their
// periods. Each decision comes with the AbleToScale and ScalingLimited reasons upstream gives.
import type {
  HorizontalPodAutoscalerBehavior,
  HPAScalingRules,
} from '../../api/types/autoscaling-v2.generated.js';

/** --horizontal-pod-autoscaler-downscale-stabilization. */
export const DEFAULT_DOWNSCALE_STABILIZATION_MS = 5 * 60_000;
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

interface Recommendation {
  recommendation: number;
  timestamp: number;
}

interface ScaleEvent {
  replicaChange: number;
  timestamp: number;
  outdated: boolean;
}

/** A condition the normalization sets: status is True unless said otherwise. */
export interface ConditionText {
  readonly reason: string;
  readonly message: string;
}

export interface Normalized {
  readonly desiredReplicas: number;
  /** AbleToScale (True): ReadyForNewScale, ScaleUpStabilized or ScaleDownStabilized. */
  readonly ableToScale: ConditionText;
  /** ScalingLimited: True when the limits changed the stabilized recommendation. */
  readonly scalingLimited: ConditionText & { readonly limited: boolean };
}

const READY_FOR_NEW_SCALE: ConditionText = {
  reason: 'ReadyForNewScale',
  message: 'recommended size matches current size',
};
const DESIRED_WITHIN_RANGE = {
  reason: 'DesiredWithinRange',
  message: 'the desired count is within the acceptable range',
};

/** The recommendations and scale events of every HPA (upstream keeps them in the controller, not in the object). */
export class ScalingHistory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  constructor(
    private readonly downscaleStabilizationMs = DEFAULT_DOWNSCALE_STABILIZATION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** recordInitialRecommendation: the target's size is the first recommendation. */
  recordInitial(key: string, currentReplicas: number): void {
    if (!this.recommendations.has(key)) {
      this.recommendations.set(key, [{ recommendation: currentReplicas, timestamp: this.now() }]);
    }
  }

  /** normalizeDesiredReplicas: without `behavior`. */
  normalize(
    key: string,
    currentReplicas: number,
    proposed: number,
    minReplicas: number,
    maxReplicas: number,
  ): Normalized {
    const stabilized = this.stabilize(key, proposed);
    const ableToScale =
      stabilized !== proposed
        ? {
            reason: 'ScaleDownStabilized',
            message:
              'recent recommendations were higher than current one, applying the highest recent recommendation',
          }
        : READY_FOR_NEW_SCALE;
    const limited = limitWithRules(currentReplicas, stabilized, minReplicas, maxReplicas);
    return {
      desiredReplicas: limited.replicas,
      ableToScale,
      scalingLimited: {
        reason: limited.reason,
        message: limited.message,
        limited: limited.replicas !== stabilized,
      },
    };
  }

  /** normalizeDesiredReplicasWithBehaviors: `behavior` as the API server defaulted it. */
  normalizeWithBehavior(
    key: string,
    behavior: HorizontalPodAutoscalerBehavior,
    currentReplicas: number,
    proposed: number,
    minReplicas: number,
    maxReplicas: number,
  ): Normalized {
    const scaleUp = behavior.scaleUp ?? {};
    const scaleDown = behavior.scaleDown ?? {};
    const upWindowS = scaleUp.stabilizationWindowSeconds ?? 0;
    const downWindowS = scaleDown.stabilizationWindowSeconds ?? this.downscaleStabilizationMs / 1000;
    const stabilized = this.stabilizeWithBehavior(key, currentReplicas, proposed, upWindowS, downWindowS);
    const ableToScale = stabilized.recommendation !== proposed ? stabilized : READY_FOR_NEW_SCALE;
    const limited = this.limitWithBehavior(
      key,
      scaleUp,
      scaleDown,
      currentReplicas,
      stabilized.recommendation,
      minReplicas,
      maxReplicas,
    );
    return {
      desiredReplicas: limited.replicas,
      ableToScale: { reason: ableToScale.reason, message: ableToScale.message },
      scalingLimited: {
        reason: limited.reason,
        message: limited.message,
        limited: limited.replicas !== stabilized.recommendation,
      },
    };
  }

  /** storeScaleEvent: kept only for HPAs with `behavior`, replacing one that has left every policy period. */
  recordScale(
    key: string,
    behavior: HorizontalPodAutoscalerBehavior | undefined,
    previous: number,
    next: number,
  ): void {
    if (behavior === undefined) return;
    const up = next > previous;
    const events = up ? this.scaleUpEvents : this.scaleDownEvents;
    const rules = (up ? behavior.scaleUp : behavior.scaleDown) ?? {};
    const list = events.get(key) ?? [];
    events.set(key, list);
    const cutoff = this.now() - longestPolicyPeriodS(rules) * 1000;
    for (const event of list) if (event.timestamp < cutoff) event.outdated = true;
    const fresh = { replicaChange: Math.abs(next - previous), timestamp: this.now(), outdated: false };
    const outdated = list.findLastIndex((event) => event.outdated);
    if (outdated >= 0) list[outdated] = fresh;
    else list.push(fresh);
  }

  /** stabilizeRecommendation: the highest recommendation within the downscale window. */
  private stabilize(key: string, proposed: number): number {
    const cutoff = this.now() - this.downscaleStabilizationMs;
    const list = this.recommendations.get(key) ?? [];
    this.recommendations.set(key, list);
    let highest = proposed;
    let oldIndex = -1;
    list.forEach((entry, index) => {
      if (entry.timestamp < cutoff) oldIndex = index;
      else if (entry.recommendation > highest) highest = entry.recommendation;
    });
    const fresh = { recommendation: proposed, timestamp: this.now() };
    if (oldIndex >= 0) list[oldIndex] = fresh;
    else list.push(fresh);
    return highest;
  }

  /** stabilizeRecommendationWithBehaviors: between the lowest recent recommendation (up) and the highest (down). */
  private stabilizeWithBehavior(
    key: string,
    currentReplicas: number,
    proposed: number,
    upWindowS: number,
    downWindowS: number,
  ): ConditionText & { recommendation: number } {
    const now = this.now();
    const upCutoff = now - upWindowS * 1000;
    const downCutoff = now - downWindowS * 1000;
    let upRecommendation = proposed;
    let downRecommendation = proposed;
    let oldIndex = -1;
    const list = this.recommendations.get(key) ?? [];
    this.recommendations.set(key, list);
    list.forEach((entry, index) => {
      if (entry.timestamp > upCutoff) upRecommendation = Math.min(entry.recommendation, upRecommendation);
      if (entry.timestamp > downCutoff)
        downRecommendation = Math.max(entry.recommendation, downRecommendation);
      if (entry.timestamp < upCutoff && entry.timestamp < downCutoff) oldIndex = index;
    });
    let recommendation = currentReplicas;
    if (recommendation < upRecommendation) recommendation = upRecommendation;
    if (recommendation > downRecommendation) recommendation = downRecommendation;
    const fresh = { recommendation: proposed, timestamp: now };
    if (oldIndex >= 0) list[oldIndex] = fresh;
    else list.push(fresh);
    if (proposed >= currentReplicas) {
      return {
        recommendation,
        reason: 'ScaleUpStabilized',
        message:
          'recent recommendations were lower than current one, applying the lowest recent recommendation',
      };
    }
    return {
      recommendation,
      reason: 'ScaleDownStabilized',
      message:
        'recent recommendations were higher than current one, applying the highest recent recommendation',
    };
  }

  /** convertDesiredReplicasWithBehaviorRate: the policies' limits, then min/max. */
  private limitWithBehavior(
    key: string,
    scaleUp: HPAScalingRules,
    scaleDown: HPAScalingRules,
    currentReplicas: number,
    desired: number,
    minReplicas: number,
    maxReplicas: number,
  ): ConditionText & { replicas: number } {
    const upEvents = this.scaleUpEvents.get(key) ?? [];
    const downEvents = this.scaleDownEvents.get(key) ?? [];
    if (desired > currentReplicas) {
      const scaleUpLimit = Math.max(
        currentReplicas,
        scaleLimitWithRules('up', currentReplicas, upEvents, downEvents, scaleUp, this.now()),
      );
      const text =
        maxReplicas > scaleUpLimit
          ? {
              reason: 'ScaleUpLimit',
              message: 'the desired replica count is increasing faster than the maximum scale rate',
            }
          : {
              reason: 'TooManyReplicas',
              message: 'the desired replica count is more than the maximum replica count',
            };
      const allowed = Math.min(maxReplicas, scaleUpLimit);
      if (desired > allowed) return { replicas: allowed, ...text };
    } else if (desired < currentReplicas) {
      const scaleDownLimit = Math.min(
        currentReplicas,
        scaleLimitWithRules('down', currentReplicas, upEvents, downEvents, scaleDown, this.now()),
      );
      const text =
        minReplicas < scaleDownLimit
          ? {
              reason: 'ScaleDownLimit',
              message: 'the desired replica count is decreasing faster than the maximum scale rate',
            }
          : {
              reason: 'TooFewReplicas',
              message: 'the desired replica count is less than the minimum replica count',
            };
      const allowed = Math.max(minReplicas, scaleDownLimit);
      if (desired < allowed) return { replicas: allowed, ...text };
    }
    return { replicas: desired, ...DESIRED_WITHIN_RANGE };
  }
}

/** convertDesiredReplicasWithRules: min/maxReplicas and, without `behavior`, at most double (at least 4). */
export function limitWithRules(
  currentReplicas: number,
  desired: number,
  minReplicas: number,
  maxReplicas: number,
): ConditionText & { replicas: number } {
  const scaleUpLimit = Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM));
  const upper =
    maxReplicas > scaleUpLimit
      ? {
          replicas: scaleUpLimit,
          reason: 'ScaleUpLimit',
          message: 'the desired replica count is increasing faster than the maximum scale rate',
        }
      : {
          replicas: maxReplicas,
          reason: 'TooManyReplicas',
          message: 'the desired replica count is more than the maximum replica count',
        };
  if (desired < minReplicas) {
    return {
      replicas: minReplicas,
      reason: 'TooFewReplicas',
      message: 'the desired replica count is less than the minimum replica count',
    };
  }
  if (desired > upper.replicas) return upper;
  return { replicas: desired, ...DESIRED_WITHIN_RANGE };
}

function longestPolicyPeriodS(rules: HPAScalingRules): number {
  return Math.max(0, ...(rules.policies ?? []).map((policy) => policy.periodSeconds));
}

/** The replicas changed by events within the last `periodSeconds`. */
function changeWithinPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let replicas = 0;
  for (const event of events) if (event.timestamp > cutoff) replicas += event.replicaChange;
  return replicas;
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/**
 * calculateScaleUpLimitWithScalingRules (`up`: the most replicas the policies allow now) and
 * calculateScaleDownLimitWithBehaviors (the fewest). Each policy counts from the replicas at the
 * start of its period; `Max` picks the policy allowing the biggest change, `Min` the smallest.
 */
export function scaleLimitWithRules(
  direction: 'up' | 'down',
  currentReplicas: number,
  upEvents: readonly ScaleEvent[],
  downEvents: readonly ScaleEvent[],
  rules: HPAScalingRules,
  now: number,
): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const up = direction === 'up';
  // Scaling up, the biggest change is the highest count; scaling down, the lowest.
  const highest = up !== (rules.selectPolicy === 'Min');
  let result = highest ? INT32_MIN : INT32_MAX;
  for (const policy of rules.policies ?? []) {
    const periodStart =
      currentReplicas -
      changeWithinPeriod(policy.periodSeconds, upEvents, now) +
      changeWithinPeriod(policy.periodSeconds, downEvents, now);
    let proposed = 0;
    if (policy.type === 'Pods') proposed = up ? periodStart + policy.value : periodStart - policy.value;
    else if (policy.type === 'Percent') {
      // Up rounds up, so a small percentage still adds a replica; down truncates.
      proposed = up
        ? Math.ceil(periodStart * (1 + policy.value / 100))
        : Math.trunc(periodStart * (1 - policy.value / 100));
    }
    result = highest ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}
