// The HPA's normalization of a proposal: min/max and the default scale-up limit without
// `behavior`, the downscale stabilization window, and the behavior policies (Pods/Percent,
// periods, selectPolicy Max/Min/Disabled, stabilization windows) as upstream's docs describe them.
import { beforeEach, describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscalerBehavior } from '../../../../src/api/types/autoscaling-v2.generated.js';
import { ScalingHistory } from '../../../../src/controllers/podautoscaler/normalization.js';

let clock = 1_000_000_000;
const advance = (seconds: number) => {
  clock += seconds * 1000;
};

/** The API server's defaults for a behavior naming only what differs. */
function behavior(overrides: HorizontalPodAutoscalerBehavior = {}): HorizontalPodAutoscalerBehavior {
  return {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
      ...overrides.scaleUp,
    },
    scaleDown: {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      ...overrides.scaleDown,
    },
  };
}

describe('normalization without behavior', () => {
  let history: ScalingHistory;
  beforeEach(() => {
    history = new ScalingHistory(300_000, () => clock);
  });

  it('clamps to min and max, and scales up at most to double (at least 4)', () => {
    expect(history.normalize('a', 3, 0, 2, 10)).toMatchObject({
      desiredReplicas: 2,
      scalingLimited: {
        limited: true,
        reason: 'TooFewReplicas',
        message: 'the desired replica count is less than the minimum replica count',
      },
    });
    expect(history.normalize('b', 5, 20, 1, 5)).toMatchObject({
      desiredReplicas: 5,
      scalingLimited: {
        limited: true,
        reason: 'TooManyReplicas',
        message: 'the desired replica count is more than the maximum replica count',
      },
    });
    expect(history.normalize('c', 1, 10, 1, 20)).toMatchObject({
      desiredReplicas: 4,
      scalingLimited: { limited: true, reason: 'ScaleUpLimit' },
    });
    expect(history.normalize('d', 3, 10, 1, 20).desiredReplicas).toBe(6);
    expect(history.normalize('e', 3, 5, 1, 20)).toMatchObject({
      desiredReplicas: 5,
      ableToScale: { reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
      scalingLimited: {
        limited: false,
        reason: 'DesiredWithinRange',
        message: 'the desired count is within the acceptable range',
      },
    });
  });

  it('keeps the highest recommendation of the last 5 minutes when scaling down', () => {
    history.recordInitial('a', 5);
    advance(60);
    expect(history.normalize('a', 5, 2, 1, 10)).toMatchObject({
      desiredReplicas: 5,
      ableToScale: {
        reason: 'ScaleDownStabilized',
        message:
          'recent recommendations were higher than current one, applying the highest recent recommendation',
      },
    });
    advance(241);
    // The initial 5 has left the window; the 2 of a minute ago is the highest left.
    expect(history.normalize('a', 5, 2, 1, 10).desiredReplicas).toBe(2);
  });
});

describe('normalization with behavior', () => {
  let history: ScalingHistory;
  beforeEach(() => {
    history = new ScalingHistory(300_000, () => clock);
  });

  it('limits a scale-up by the larger policy (Max) or the smaller (Min)', () => {
    const rules = behavior({
      scaleUp: {
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 60 },
          { type: 'Percent', value: 100, periodSeconds: 60 },
        ],
      },
    });
    expect(history.normalizeWithBehavior('a', rules, 1, 10, 1, 20)).toMatchObject({
      desiredReplicas: 5,
      scalingLimited: {
        limited: true,
        reason: 'ScaleUpLimit',
        message: 'the desired replica count is increasing faster than the maximum scale rate',
      },
    });
    const min = behavior({ scaleUp: { ...rules.scaleUp, selectPolicy: 'Min' } });
    expect(history.normalizeWithBehavior('b', min, 1, 10, 1, 20).desiredReplicas).toBe(2);
    // Percent rounds up: 10 % of 3 still adds one.
    const percent = behavior({ scaleUp: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } });
    expect(history.normalizeWithBehavior('c', percent, 3, 10, 1, 20).desiredReplicas).toBe(4);
  });

  it('counts the scale events of each policy period', () => {
    const rules = behavior({ scaleUp: { policies: [{ type: 'Pods', value: 4, periodSeconds: 60 }] } });
    expect(history.normalizeWithBehavior('a', rules, 1, 10, 1, 20).desiredReplicas).toBe(5);
    history.recordScale('a', rules, 1, 5);
    advance(30);
    // Four were added within the period: no more until it passes.
    expect(history.normalizeWithBehavior('a', rules, 5, 10, 1, 20).desiredReplicas).toBe(5);
    advance(31);
    expect(history.normalizeWithBehavior('a', rules, 5, 10, 1, 20).desiredReplicas).toBe(9);
  });

  it('limits a scale-down by percent, and never scales a Disabled direction', () => {
    const percent = behavior({
      scaleDown: {
        stabilizationWindowSeconds: 0,
        policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }],
      },
    });
    expect(history.normalizeWithBehavior('a', percent, 10, 1, 1, 20)).toMatchObject({
      desiredReplicas: 5,
      scalingLimited: {
        limited: true,
        reason: 'ScaleDownLimit',
        message: 'the desired replica count is decreasing faster than the maximum scale rate',
      },
    });
    const disabled = behavior({ scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled' } });
    expect(history.normalizeWithBehavior('b', disabled, 5, 2, 1, 20).desiredReplicas).toBe(5);
    const upDisabled = behavior({ scaleUp: { selectPolicy: 'Disabled' } });
    expect(history.normalizeWithBehavior('c', upDisabled, 5, 9, 1, 20).desiredReplicas).toBe(5);
    // min still wins over the policy.
    expect(history.normalizeWithBehavior('d', percent, 10, 1, 8, 20)).toMatchObject({
      desiredReplicas: 8,
      scalingLimited: { reason: 'TooFewReplicas' },
    });
  });

  it('stabilizes down over 300 s by default and up over the scaleUp window', () => {
    const rules = behavior();
    history.recordInitial('a', 5);
    advance(100);
    expect(history.normalizeWithBehavior('a', rules, 5, 2, 1, 20)).toMatchObject({
      desiredReplicas: 5,
      ableToScale: { reason: 'ScaleDownStabilized' },
    });
    advance(201);
    expect(history.normalizeWithBehavior('a', rules, 5, 2, 1, 20).desiredReplicas).toBe(2);

    const up = behavior({ scaleUp: { stabilizationWindowSeconds: 60 } });
    history.recordInitial('b', 2);
    advance(30);
    expect(history.normalizeWithBehavior('b', up, 2, 6, 1, 20)).toMatchObject({
      desiredReplicas: 2,
      ableToScale: {
        reason: 'ScaleUpStabilized',
        message:
          'recent recommendations were lower than current one, applying the lowest recent recommendation',
      },
    });
    advance(31);
    // The 2 has left the window; the 6 of 31 s ago is now the lowest.
    expect(history.normalizeWithBehavior('b', up, 2, 6, 1, 20).desiredReplicas).toBe(6);
  });
});
