// The StatefulSet update pass without a cluster: what OrderedReady and Parallel create and delete
// in one pass, scale-down order, the rolling update from the highest ordinal down to the
// partition one pod at a time, and the status it counts.
import { describe, expect, it } from 'vitest';
import type { StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { newStatefulSetPod, ordinalOf } from '../../../src/controllers/statefulset/stateful-pods.js';
import {
  completeRollingUpdate,
  type Revisions,
  type StatefulPodActions,
  updateStatefulSet,
} from '../../../src/controllers/statefulset/stateful-set-control.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const TEMPLATE = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'v1' }] } };
const TEMPLATE2 = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'v2' }] } };
const REVS: Revisions = {
  currentHash: 's-1',
  currentTemplate: TEMPLATE,
  updateHash: 's-2',
  updateTemplate: TEMPLATE2,
};
const SAME: Revisions = {
  currentHash: 's-2',
  currentTemplate: TEMPLATE2,
  updateHash: 's-2',
  updateTemplate: TEMPLATE2,
};

function set(spec: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet {
  return {
    metadata: { name: 's', namespace: 'ns', uid: 'set-uid', generation: 1 },
    spec: {
      replicas: 3,
      serviceName: 'svc',
      selector: { matchLabels: { app: 's' } },
      template: TEMPLATE2,
      ...spec,
    },
  };
}

function live(ordinal: number, hash: string, ready = true): Pod {
  const pod = newStatefulSetPod(set(), TEMPLATE, hash, ordinal);
  pod.metadata!.uid = `uid-${ordinal}`;
  pod.status = {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ],
  };
  return pod;
}

function recorder() {
  const log: string[] = [];
  const actions: StatefulPodActions = {
    createPod: async (pod) => void log.push(`create ${pod.metadata!.name} ${pod.spec!.containers[0]!.image}`),
    deletePod: async (pod) => void log.push(`delete ${pod.metadata!.name}`),
    syncClaimOwners: async (pod, _ordinal, condemned) => {
      if (condemned) log.push(`condemn ${pod.metadata!.name}`);
    },
    recreating: (pod) => void log.push(`recreating ${pod.metadata!.name}`),
  };
  return { log, actions };
}

describe('stateful pod identity', () => {
  it('names, labels, hostname, subdomain and claim volumes by ordinal', () => {
    const s = set({
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
    });
    const pod = newStatefulSetPod(s, TEMPLATE, 's-1', 4);
    expect(pod.metadata).toMatchObject({
      name: 's-4',
      namespace: 'ns',
      labels: {
        app: 's',
        'statefulset.kubernetes.io/pod-name': 's-4',
        'apps.kubernetes.io/pod-index': '4',
        'controller-revision-hash': 's-1',
      },
    });
    expect(pod.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'StatefulSet',
      name: 's',
      controller: true,
    });
    expect(pod.spec).toMatchObject({ hostname: 's-4', subdomain: 'svc' });
    expect(pod.spec!.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'data-s-4' } }]);
    expect(ordinalOf(pod, 's')).toBe(4);
    expect(ordinalOf({ metadata: { name: 'other-4' } }, 's')).toBe(-1);
  });
});

describe('the update pass', () => {
  it('OrderedReady creates one ordinal and waits for it to be ready', async () => {
    const { log, actions } = recorder();
    await updateStatefulSet(set(), SAME, [], actions, NOW);
    expect(log).toEqual(['create s-0 v2']);
    const waiting = recorder();
    await updateStatefulSet(set(), SAME, [live(0, 's-2', false)], waiting.actions, NOW);
    expect(waiting.log).toEqual([]);
    const next = recorder();
    await updateStatefulSet(set(), SAME, [live(0, 's-2')], next.actions, NOW);
    expect(next.log).toEqual(['create s-1 v2']);
  });

  it('with minReadySeconds, OrderedReady waits for availability and the status counts it', async () => {
    const slow = set({ minReadySeconds: 3600 });
    const { log, actions } = recorder();
    const status = await updateStatefulSet(slow, SAME, [live(0, 's-2')], actions, NOW);
    expect(log).toEqual([]);
    expect(status).toMatchObject({ replicas: 1, readyReplicas: 1, availableReplicas: 0 });
    const quick = await updateStatefulSet(
      set({ minReadySeconds: 60 }),
      SAME,
      [live(0, 's-2')],
      recorder().actions,
      NOW,
    );
    expect(quick.availableReplicas).toBe(1);
  });

  it('deletes a failed pod to recreate it, and waits for that under OrderedReady', async () => {
    const failed = live(1, 's-2');
    failed.status = { phase: 'Failed' };
    const { log, actions } = recorder();
    await updateStatefulSet(set(), SAME, [live(0, 's-2'), failed, live(2, 's-2')], actions, NOW);
    expect(log).toEqual(['recreating s-1', 'delete s-1']);
  });

  it('Parallel creates every missing ordinal from ordinals.start at once', async () => {
    const { log, actions } = recorder();
    await updateStatefulSet(
      set({ podManagementPolicy: 'Parallel', ordinals: { start: 5 } }),
      SAME,
      [],
      actions,
      NOW,
    );
    expect(log).toEqual(['create s-5 v2', 'create s-6 v2', 'create s-7 v2']);
  });

  it('scales down highest ordinal first, one at a time under OrderedReady', async () => {
    const { log, actions } = recorder();
    const pods = [0, 1, 2, 3, 4].map((i) => live(i, 's-2'));
    await updateStatefulSet(set({ replicas: 2 }), SAME, pods, actions, NOW);
    expect(log).toEqual(['condemn s-4', 'delete s-4']);
  });

  it('rolls from the highest ordinal down to the partition, one at a time', async () => {
    const rolling = set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
    const first = recorder();
    await updateStatefulSet(
      rolling,
      REVS,
      [0, 1, 2].map((i) => live(i, 's-1')),
      first.actions,
      NOW,
    );
    expect(first.log).toEqual(['delete s-2']);
    // s-2 came back updated but is not ready yet: the pass waits.
    const waiting = recorder();
    await updateStatefulSet(
      rolling,
      REVS,
      [live(0, 's-1'), live(1, 's-1'), live(2, 's-2', false)],
      waiting.actions,
      NOW,
    );
    expect(waiting.log).toEqual([]);
    const second = recorder();
    await updateStatefulSet(
      rolling,
      REVS,
      [live(0, 's-1'), live(1, 's-1'), live(2, 's-2')],
      second.actions,
      NOW,
    );
    expect(second.log).toEqual(['delete s-1']);
    // Ordinal 0 is below the partition: it stays.
    const done = recorder();
    const status = await updateStatefulSet(
      rolling,
      REVS,
      [live(0, 's-1'), live(1, 's-2'), live(2, 's-2')],
      done.actions,
      NOW,
    );
    expect(done.log).toEqual([]);
    expect(status).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2 });
    expect(completeRollingUpdate(rolling, status).currentRevision).toBe('s-1');
  });

  it('recreates a missing ordinal below the partition at the current revision', async () => {
    const rolling = set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    const { log, actions } = recorder();
    await updateStatefulSet(rolling, REVS, [live(1, 's-1'), live(2, 's-2')], actions, NOW);
    expect(log).toEqual(['create s-0 v1']);
  });

  it('deletes one pod at a time even when maxUnavailable says more (its feature gate is off in 1.33)', async () => {
    const rolling = set({
      podManagementPolicy: 'Parallel',
      replicas: 4,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } },
    });
    const { log, actions } = recorder();
    await updateStatefulSet(
      rolling,
      REVS,
      [0, 1, 2, 3].map((i) => live(i, 's-1')),
      actions,
      NOW,
    );
    expect(log).toEqual(['delete s-3']);
  });

  it('does not touch pods with OnDelete, and completes the revision once all are updated and ready', async () => {
    const onDelete = set({ updateStrategy: { type: 'OnDelete' } });
    const { log, actions } = recorder();
    await updateStatefulSet(
      onDelete,
      REVS,
      [0, 1, 2].map((i) => live(i, 's-1')),
      actions,
      NOW,
    );
    expect(log).toEqual([]);
    const rolling = set();
    const status = await updateStatefulSet(
      rolling,
      REVS,
      [0, 1, 2].map((i) => live(i, 's-2')),
      recorder().actions,
      NOW,
    );
    expect(completeRollingUpdate(rolling, status)).toMatchObject({
      currentRevision: 's-2',
      currentReplicas: 3,
    });
  });
});
