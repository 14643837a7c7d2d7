// The pieces of the replica manager that need no control plane: which pods go first on
// scale-down (ActivePodsWithRanks), expectations, and slow-start batches.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { deleteBefore, sortPodsForDeletion } from '../../../src/controllers/controller-utils/active-pods.js';
import {
  ControllerExpectations,
  EXPECTATIONS_TIMEOUT_MS,
  UidTrackingExpectations,
} from '../../../src/controllers/controller-utils/expectations.js';
import { slowStartBatch } from '../../../src/controllers/controller-utils/slow-start.js';
import { podsToDelete } from '../../../src/controllers/replicaset/replica-manager.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const at = (secondsAgo: number) => `${new Date(NOW - secondsAgo * 1000).toISOString().slice(0, 19)}Z`;

interface PodShape {
  node?: string;
  phase?: string;
  readySecondsAgo?: number;
  createdSecondsAgo?: number;
  restarts?: number;
  cost?: string;
  uid?: string;
}

function pod(name: string, shape: PodShape = {}): Pod {
  return {
    metadata: {
      name,
      uid: shape.uid ?? name,
      creationTimestamp: at(shape.createdSecondsAgo ?? 3600),
      ...(shape.cost !== undefined
        ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': shape.cost } }
        : {}),
    },
    spec: { containers: [{ name: 'c' }], ...(shape.node ? { nodeName: shape.node } : {}) },
    status: {
      phase: shape.phase ?? 'Running',
      conditions:
        shape.readySecondsAgo === undefined
          ? [{ type: 'Ready', status: 'False' }]
          : [{ type: 'Ready', status: 'True', lastTransitionTime: at(shape.readySecondsAgo) }],
      containerStatuses: [
        { name: 'c', image: 'i', imageID: '', ready: true, restartCount: shape.restarts ?? 0 },
      ],
    },
  };
}

const order = (pods: Pod[], ranks = pods.map(() => 0)) =>
  sortPodsForDeletion(pods, ranks, NOW).map((p) => p.metadata!.name);

describe('pod deletion ranking', () => {
  const ready = { node: 'n1', readySecondsAgo: 600 };

  it('deletes unassigned before assigned, Pending before Unknown before Running, unready before ready', () => {
    expect(order([pod('assigned', ready), pod('unassigned', { readySecondsAgo: 600 })])).toEqual([
      'unassigned',
      'assigned',
    ]);
    expect(
      order([
        pod('running', { node: 'n1', phase: 'Running' }),
        pod('unknown', { node: 'n1', phase: 'Unknown' }),
        pod('pending', { node: 'n1', phase: 'Pending' }),
      ]),
    ).toEqual(['pending', 'unknown', 'running']);
    expect(order([pod('ready', ready), pod('unready', { node: 'n1' })])).toEqual(['unready', 'ready']);
  });

  it('then lower deletion cost, then more related pods on the same node', () => {
    expect(order([pod('dear', { ...ready, cost: '100' }), pod('cheap', { ...ready, cost: '-5' })])).toEqual([
      'cheap',
      'dear',
    ]);
    // A malformed cost counts as 0.
    expect(order([pod('zero', { ...ready, cost: 'x' }), pod('cheap', { ...ready, cost: '-1' })])).toEqual([
      'cheap',
      'zero',
    ]);
    expect(order([pod('alone', ready), pod('crowded', ready)], [1, 3])).toEqual(['crowded', 'alone']);
  });

  it('then ready for less time, on a logarithmic scale (same power of two: by UID)', () => {
    expect(
      order([
        pod('long', { node: 'n1', readySecondsAgo: 10_000 }),
        pod('short', { node: 'n1', readySecondsAgo: 5 }),
      ]),
    ).toEqual(['short', 'long']);
    // 100 s and 120 s ago fall in the same power of two of nanoseconds: the lower UID goes first.
    expect(
      order([
        pod('a', { node: 'n1', readySecondsAgo: 100, uid: 'uid-b' }),
        pod('b', { node: 'n1', readySecondsAgo: 120, uid: 'uid-a' }),
      ]),
    ).toEqual(['b', 'a']);
  });

  it('then more restarts, then newer', () => {
    expect(order([pod('stable', ready), pod('flaky', { ...ready, restarts: 4 })])).toEqual([
      'flaky',
      'stable',
    ]);
    expect(
      order([
        pod('old', { ...ready, createdSecondsAgo: 100_000 }),
        pod('new', { ...ready, createdSecondsAgo: 10 }),
      ]),
    ).toEqual(['new', 'old']);
    expect(deleteBefore(pod('same', ready), 0, pod('same', ready), 0, NOW)).toBe(false);
  });

  it('ranks pods by the related pods sharing their node', () => {
    const pods = [pod('on-a', ready), pod('on-b', { ...ready, node: 'n2' })];
    const related = [
      ...pods,
      pod('sibling-1', { ...ready, node: 'n2' }),
      pod('sibling-2', { ...ready, node: 'n2' }),
    ];
    expect(podsToDelete(pods, related, 1, NOW).map((p) => p.metadata!.name)).toEqual(['on-b']);
    // All of them: no ranking needed.
    expect(podsToDelete(pods, related, 2, NOW)).toHaveLength(2);
  });
});

describe('expectations', () => {
  it('hold a controller back until the creations are observed, or for five minutes', () => {
    let now = 0;
    const expectations = new ControllerExpectations(() => now);
    expect(expectations.satisfied('ns/rs')).toBe(true);
    expectations.expectCreations('ns/rs', 2);
    expect(expectations.satisfied('ns/rs')).toBe(false);
    expectations.creationObserved('ns/rs');
    expect(expectations.get('ns/rs')).toEqual({ add: 1, del: 0 });
    expect(expectations.satisfied('ns/rs')).toBe(false);
    now = EXPECTATIONS_TIMEOUT_MS + 1;
    expect(expectations.satisfied('ns/rs')).toBe(true);
  });

  it('count each expected pod deletion once, and no other', () => {
    const expectations = new UidTrackingExpectations();
    expectations.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    expectations.deletionObserved('ns/rs', 'ns/a');
    expectations.deletionObserved('ns/rs', 'ns/a');
    expectations.deletionObserved('ns/rs', 'ns/other');
    expect(expectations.counts.get('ns/rs')).toEqual({ add: 0, del: 1 });
    expectations.deletionObserved('ns/rs', 'ns/b');
    expect(expectations.satisfied('ns/rs')).toBe(true);
    expectations.delete('ns/rs');
    expect(expectations.counts.get('ns/rs')).toBeUndefined();
  });
});

describe('slow start', () => {
  it('calls in batches of 1, 2, 4 ... and stops after a batch with a failure', async () => {
    const batches: number[] = [];
    let inFlight = 0;
    let calls = 0;
    const result = await slowStartBatch(20, 1, async () => {
      calls++;
      inFlight++;
      if (inFlight === 1) batches.push(0);
      batches[batches.length - 1]!++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      if (calls > 7) throw new Error('quota exceeded');
    });
    expect(batches).toEqual([1, 2, 4, 8]);
    expect(result.successes).toBe(7);
    expect((result.error as Error).message).toBe('quota exceeded');
    expect(await slowStartBatch(5, 1, async () => {})).toEqual({ successes: 5 });
  });
});
