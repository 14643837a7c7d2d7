// The HPA's replica calculator against the cases of upstream's replica_calculator_test.go: pods
// of two containers each requesting the given amount, metrics per container, ready/unready,
// hot (just started) and failed, pending or deleted pods, missing readings and the tolerance.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/types/core-v1.generated.js';
import {
  type MetricsClient,
  type PodMetrics,
  resourceMetricsOf,
} from '../../../../src/controllers/podautoscaler/metrics-client.js';
import { ReplicaCalculator } from '../../../../src/controllers/podautoscaler/replica-calculator.js';

const HOT = new Date().toISOString();
const COOL = new Date(Date.now() - 3 * 60_000).toISOString();

interface Case {
  currentReplicas: number;
  requests: string[];
  /** Per pod: one level for both containers, or one per container. */
  levels: (number | [number, number])[];
  readiness?: ('True' | 'False')[];
  startTimes?: string[];
  phases?: string[];
  deleted?: boolean[];
  container?: string;
}

function pods(c: Case): Pod[] {
  const count = Math.max(c.currentReplicas, c.phases?.length ?? 0);
  return Array.from({ length: count }, (_, i): Pod => {
    const request = c.requests[i];
    const resources = request === undefined ? {} : { requests: { cpu: request } };
    return {
      metadata: {
        name: `pod-${i}`,
        namespace: 'ns',
        labels: { name: 'pod' },
        ...(c.deleted?.[i] ? { deletionTimestamp: new Date().toISOString() } : {}),
      },
      spec: {
        containers: [
          { name: 'container1', resources },
          { name: 'container2', resources },
        ],
      },
      status: {
        phase: c.phases?.[i] ?? 'Running',
        // Upstream's zero time: long before the initialization period.
        startTime: c.startTimes?.[i] ?? '0001-01-01T00:00:00Z',
        conditions: [{ type: 'Ready', status: c.readiness?.[i] ?? 'True' }],
      },
    };
  });
}

function podMetrics(c: Case): PodMetrics[] {
  return c.levels.map((level, i) => {
    const [first, second] = typeof level === 'number' ? [level, level] : level;
    return {
      metadata: { name: `pod-${i}`, namespace: 'ns' },
      timestamp: '0001-01-01T00:00:00Z',
      window: '1m0s',
      containers: [
        { name: 'container1', usage: { cpu: `${first}m` } },
        { name: 'container2', usage: { cpu: `${second}m` } },
      ],
    };
  });
}

function calculator(c: Case): ReplicaCalculator {
  const metrics: MetricsClient = {
    getResourceMetric: async (resource, _namespace, _selector, container) =>
      resourceMetricsOf(podMetrics(c), resource, container),
  };
  return new ReplicaCalculator(metrics, () => pods(c), {
    cpuInitializationPeriodMs: 2 * 60_000,
    delayOfInitialReadinessStatusMs: 10_000,
  });
}

async function utilization(c: Case, target: number) {
  const result = await calculator(c).getResourceReplicas(c.currentReplicas, target, {
    resource: 'cpu',
    namespace: 'ns',
    selector: 'name=pod',
    container: c.container ?? '',
  });
  return { replicas: result.replicas, utilization: result.utilization, value: result.rawUtilization };
}

const ONES = (n: number) => Array.from({ length: n }, () => '1.0');

describe('replica calculator: utilization targets', () => {
  it('scales up (TestReplicaCalcScaleUp) and per container', async () => {
    expect(await utilization({ currentReplicas: 3, requests: ONES(3), levels: [300, 500, 700] }, 30)).toEqual(
      {
        replicas: 5,
        utilization: 50,
        value: 1000,
      },
    );
    const container = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [
        [1000, 300],
        [1000, 500],
        [1000, 700],
      ] as [number, number][],
      container: 'container2',
    };
    expect(await utilization(container, 30)).toEqual({ replicas: 5, utilization: 50, value: 500 });
  });

  it('scales up less with an unready or hot pod, and not at all when only one pod is ready', async () => {
    const unready = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [300, 500, 700],
      readiness: ['False', 'True', 'True'] as const,
    };
    expect(await utilization({ ...unready, readiness: [...unready.readiness] }, 30)).toEqual({
      replicas: 4,
      utilization: 60,
      value: 1200,
    });
    const hot = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [300, 500, 700],
      startTimes: [HOT, COOL, COOL],
    };
    expect(await utilization(hot, 30)).toEqual({ replicas: 4, utilization: 60, value: 1200 });
    const noScale = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [400, 500, 700],
      readiness: ['True', 'False', 'False'] as ('True' | 'False')[],
    };
    expect(await utilization(noScale, 30)).toEqual({ replicas: 3, utilization: 40, value: 800 });
  });

  it('ignores failed and deleted pods', async () => {
    const failed: Case = {
      currentReplicas: 2,
      requests: ONES(4),
      levels: [500, 700],
      readiness: ['True', 'True', 'False', 'False'],
      phases: ['Running', 'Running', 'Failed', 'Failed'],
    };
    expect(await utilization(failed, 30)).toEqual({ replicas: 4, utilization: 60, value: 1200 });
    const deleted: Case = {
      currentReplicas: 2,
      requests: ONES(4),
      levels: [500, 700],
      readiness: ['True', 'True', 'False', 'False'],
      phases: ['Running', 'Running', 'Running', 'Running'],
      deleted: [false, false, true, true],
    };
    expect(await utilization(deleted, 30)).toEqual({ replicas: 4, utilization: 60, value: 1200 });
  });

  it('scales down, leaving out unready, pending and hot pods', async () => {
    const levels = [100, 300, 500, 250, 250];
    expect(await utilization({ currentReplicas: 5, requests: ONES(5), levels }, 50)).toEqual({
      replicas: 3,
      utilization: 28,
      value: 560,
    });
    const unready: Case = {
      currentReplicas: 5,
      requests: ONES(5),
      levels,
      readiness: ['True', 'True', 'True', 'False', 'False'],
    };
    expect(await utilization(unready, 50)).toEqual({ replicas: 2, utilization: 30, value: 600 });
    const pending: Case = {
      currentReplicas: 5,
      requests: ONES(5),
      levels: [100],
      readiness: ['True', 'False', 'False', 'False', 'False'],
      phases: ['Running', 'Pending', 'Pending', 'Pending', 'Pending'],
    };
    expect(await utilization(pending, 50)).toEqual({ replicas: 1, utilization: 10, value: 200 });
    const hot: Case = {
      currentReplicas: 5,
      requests: ONES(5),
      levels,
      startTimes: [COOL, COOL, COOL, HOT, HOT],
    };
    expect(await utilization(hot, 50)).toEqual({ replicas: 2, utilization: 30, value: 600 });
  });

  it('keeps the count within the tolerance (TestReplicaCalcTolerance)', async () => {
    const c: Case = { currentReplicas: 3, requests: ['0.9', '1.0', '1.1'], levels: [1010, 1030, 1020] };
    expect(await utilization(c, 100)).toEqual({ replicas: 3, utilization: 102, value: 2040 });
  });

  it('ignores readings of pods it does not select (TestReplicaCalcSuperfluousMetrics)', async () => {
    const c: Case = { currentReplicas: 4, requests: ONES(4), levels: [4000, 9500, 3000, 7000, 3200, 2000] };
    expect(await utilization(c, 100)).toEqual({ replicas: 24, utilization: 587, value: 11750 });
  });

  it('treats pods without readings as upstream does', async () => {
    // TestReplicaCalcMissingMetrics: scaling down, missing pods use their full request.
    expect(await utilization({ currentReplicas: 4, requests: ONES(4), levels: [400, 95] }, 100)).toEqual({
      replicas: 3,
      utilization: 24,
      value: 495,
    });
    // NoChangeEq / Gt / Lt: a missing pod never reverses or widens the change.
    for (const [level, expected] of [
      [1000, 100],
      [1900, 190],
      [600, 60],
    ] as const) {
      expect(await utilization({ currentReplicas: 2, requests: ONES(2), levels: [level] }, 100)).toEqual({
        replicas: 2,
        utilization: expected,
        value: level * 2,
      });
    }
    // UnreadyChange: an unready pod and a missing one, within the tolerance after filling in.
    const unreadyChange: Case = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [100, 450],
      readiness: ['False', 'True', 'True'],
    };
    expect(await utilization(unreadyChange, 50)).toEqual({ replicas: 3, utilization: 45, value: 900 });
    // UnreadyScaleUp: the unready and the missing pod count as using nothing.
    const unreadyUp: Case = {
      currentReplicas: 3,
      requests: ONES(3),
      levels: [100, 2000],
      readiness: ['False', 'True', 'True'],
    };
    expect(await utilization(unreadyUp, 50)).toEqual({ replicas: 4, utilization: 200, value: 4000 });
    // UnreadyScaleDown.
    const unreadyDown: Case = {
      currentReplicas: 4,
      requests: ONES(4),
      levels: [100, 100, 100],
      readiness: ['False', 'True', 'True', 'True'],
    };
    expect(await utilization(unreadyDown, 50)).toEqual({ replicas: 3, utilization: 10, value: 200 });
    // ScaleDownTargetOver100: a missing pod uses the target, not 100 %.
    const over100: Case = {
      currentReplicas: 4,
      requests: ['1.0', '1.0', '2.0', '2.0'],
      levels: [200, 100, 100],
      readiness: ['False', 'True', 'True', 'True'],
    };
    expect(await utilization(over100, 300)).toEqual({ replicas: 2, utilization: 6, value: 200 });
  });

  it('fails with upstream messages', async () => {
    await expect(utilization({ currentReplicas: 4, requests: ONES(3), levels: [] }, 100)).rejects.toThrow(
      'unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    );
    await expect(utilization({ currentReplicas: 1, requests: [], levels: [200] }, 100)).rejects.toThrow(
      'missing request for cpu in container container1 of Pod pod-0',
    );
    await expect(
      utilization({ currentReplicas: 1, requests: ONES(1), levels: [200], container: 'nope' }, 100),
    ).rejects.toThrow(
      'unable to get metrics for resource cpu: failed to get container metrics: container nope not present in metrics for pod ns/pod-0',
    );
  });
});

describe('replica calculator: average value targets', () => {
  async function raw(c: Case, targetMilli: number) {
    const result = await calculator(c).getRawResourceReplicas(c.currentReplicas, targetMilli, {
      resource: 'cpu',
      namespace: 'ns',
      selector: 'name=pod',
      container: '',
    });
    return { replicas: result.replicas, usage: result.usage };
  }

  it('scales to the average usage per pod, within the tolerance, with missing pods at the target', async () => {
    expect(await raw({ currentReplicas: 3, requests: ONES(3), levels: [300, 500, 700] }, 500)).toEqual({
      replicas: 6,
      usage: 1000,
    });
    expect(await raw({ currentReplicas: 3, requests: ONES(3), levels: [500, 500, 520] }, 1000)).toEqual({
      replicas: 3,
      usage: 1013,
    });
    expect(await raw({ currentReplicas: 4, requests: ONES(4), levels: [100, 100] }, 1000)).toEqual({
      replicas: 3,
      usage: 200,
    });
    expect(await raw({ currentReplicas: 4, requests: ONES(4), levels: [1000, 1000] }, 1000)).toEqual({
      replicas: 4,
      usage: 2000,
    });
  });
});
