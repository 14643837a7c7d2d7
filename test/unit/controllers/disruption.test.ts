// The disruption controller through the whole control plane on fake nodes: budgets over
// Deployments count the Deployment's scale, percentages round up, unmanaged and unscalable owners
// are reported as upstream does, evictions noted in disruptedPods expire, and a stale
// DisruptionTarget condition is turned back. The status arithmetic is checked on its own too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStatusCondition } from '../../../src/api/conditions.js';
import { conditionsAreUpToDate } from '../../../src/api/pod-disruption-budgets.js';
import type { DaemonSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { Condition } from '../../../src/api/types/meta-v1.generated.js';
import type { PodDisruptionBudget } from '../../../src/api/types/policy-v1.generated.js';
import { DAEMON_SETS, DEPLOYMENTS, PDBS, PODS } from '../../../src/client/resources.js';
import {
  buildDisruptedPodMap,
  countHealthyPods,
  DELETION_TIMEOUT_MS,
  disruptionsAllowed,
} from '../../../src/controllers/disruption/budget-status.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { createNamespace, eventRecorded, markPodReady, simpleDeployment } from './workload-support.js';

const readyPod = (name: string, extra: Partial<NonNullable<Pod['metadata']>> = {}): Pod => ({
  metadata: { name, ...extra },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe('budget status arithmetic', () => {
  const now = Date.parse('2025-01-01T00:10:00Z');

  it('keeps recent evictions of live pods, drops expired, deleting and unknown ones', () => {
    const pods = [readyPod('fresh'), readyPod('old'), readyPod('going', { deletionTimestamp: at(now) })];
    const pdb: PodDisruptionBudget = {
      status: {
        currentHealthy: 0,
        desiredHealthy: 0,
        disruptionsAllowed: 0,
        expectedPods: 0,
        disruptedPods: {
          fresh: at(now - 30_000),
          old: at(now - DELETION_TIMEOUT_MS - 1_000),
          going: at(now),
          gone: at(now),
        },
      },
    };
    const map = buildDisruptedPodMap(pods, pdb, now);
    expect(map.disruptedPods).toEqual({ fresh: at(now - 30_000) });
    expect(map.notDeleted.map((pod) => pod.metadata?.name)).toEqual(['old']);
    expect(map.recheckAtMs).toBe(now - 30_000 + DELETION_TIMEOUT_MS);
    expect(buildDisruptedPodMap(pods, {}, now)).toEqual({ disruptedPods: {}, notDeleted: [] });
  });

  it('counts Ready pods that are neither deleting nor recently evicted', () => {
    const pods = [
      readyPod('a'),
      readyPod('b'),
      readyPod('deleting', { deletionTimestamp: at(now) }),
      { metadata: { name: 'unready' }, status: { phase: 'Running' } },
    ];
    expect(countHealthyPods(pods, {}, now)).toBe(2);
    expect(countHealthyPods(pods, { a: at(now - 1_000) }, now)).toBe(1);
    expect(countHealthyPods(pods, { a: at(now - DELETION_TIMEOUT_MS - 1_000) }, now)).toBe(2);
  });

  it('allows no disruptions without expected pods or healthy pods to spare', () => {
    expect(disruptionsAllowed(3, 2, 3)).toBe(1);
    expect(disruptionsAllowed(3, 2, 0)).toBe(0);
    expect(disruptionsAllowed(1, 2, 3)).toBe(0);
  });

  it('moves a condition’s transition time only when its status flips', () => {
    const conditions: Condition[] = [];
    const update = { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' };
    expect(setStatusCondition(conditions, { ...update, observedGeneration: 0 }, 't1')).toBe(true);
    expect(conditions[0]).toEqual({ ...update, lastTransitionTime: 't1' });
    expect(setStatusCondition(conditions, update, 't2')).toBe(false);
    expect(setStatusCondition(conditions, { ...update, observedGeneration: 2 }, 't3')).toBe(true);
    expect(conditions[0]!.lastTransitionTime).toBe('t1');
    setStatusCondition(conditions, { ...update, status: 'False', reason: 'InsufficientPods' }, 't4');
    expect(conditions[0]).toMatchObject({ status: 'False', lastTransitionTime: 't4' });
    expect(conditions[0]!.observedGeneration).toBeUndefined();
  });

  it('judges conditions up to date against generation and disruptionsAllowed', () => {
    const pdb: PodDisruptionBudget = {
      metadata: { generation: 2 },
      status: {
        currentHealthy: 3,
        desiredHealthy: 2,
        expectedPods: 3,
        disruptionsAllowed: 1,
        observedGeneration: 2,
        conditions: [
          {
            type: 'DisruptionAllowed',
            status: 'True',
            reason: 'SufficientPods',
            message: '',
            lastTransitionTime: 't',
          },
        ],
      },
    };
    expect(conditionsAreUpToDate(pdb)).toBe(true);
    expect(conditionsAreUpToDate({ ...pdb, metadata: { generation: 3 } })).toBe(false);
    expect(conditionsAreUpToDate({ ...pdb, status: { ...pdb.status!, disruptionsAllowed: 0 } })).toBe(false);
  });
});

describe('disruption controller', () => {
  let cp: InProcessControlPlane;
  const ns = 'pdb-ctrl';
  beforeAll(async () => {
    cp = await startInProcessControlPlane({ fakeNodes: { count: 2 } });
    await createNamespace(cp.admin, ns);
  }, 60_000);
  afterAll(() => cp?.stop());

  const budgets = () => cp.admin.resource<PodDisruptionBudget>(PDBS);
  const statusOf = (name: string, check: (pdb: PodDisruptionBudget) => boolean, timeoutMs = 15_000) =>
    eventually(async () => {
      const pdb = await budgets().get(ns, name);
      return check(pdb) ? pdb : undefined;
    }, timeoutMs);

  it('computes the status of a minAvailable budget over a Deployment', async () => {
    await cp.admin.resource(DEPLOYMENTS).create(simpleDeployment(ns, 'web', 3, 'nginx:1.27'));
    await budgets().create({
      metadata: { name: 'web', namespace: ns },
      spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
    });
    const pdb = await statusOf('web', (p) => p.status?.currentHealthy === 3);
    expect(pdb.status).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    expect(pdb.status?.conditions).toEqual([
      expect.objectContaining({
        type: 'DisruptionAllowed',
        status: 'True',
        reason: 'SufficientPods',
        message: '',
        observedGeneration: 1,
      }),
    ]);
    expect(pdb.status?.disruptedPods).toBeUndefined();
  }, 30_000);

  it('takes percentages and maxUnavailable from the scale of the pods’ controllers', async () => {
    await budgets().create({
      metadata: { name: 'web-half', namespace: ns },
      spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } },
    });
    await budgets().create({
      metadata: { name: 'web-all', namespace: ns },
      spec: { minAvailable: '100%', selector: { matchLabels: { app: 'web' } } },
    });
    const half = await statusOf('web-half', (p) => p.status?.expectedPods === 3);
    // 50% of 3 rounds up to 2 unavailable.
    expect(half.status).toMatchObject({ desiredHealthy: 1, disruptionsAllowed: 2 });
    const all = await statusOf('web-all', (p) => p.status?.expectedPods === 3);
    expect(all.status).toMatchObject({ desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 });
    expect(all.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    // A spec change is observed at its new generation.
    await budgets().patch(ns, 'web-all', 'merge', { spec: { minAvailable: 1 } });
    const changed = await statusOf('web-all', (p) => p.status?.observedGeneration === 2);
    expect(changed.status).toMatchObject({ desiredHealthy: 1, disruptionsAllowed: 2, expectedPods: 3 });
    for (const name of ['web-half', 'web-all']) await budgets().delete(ns, name);
  }, 30_000);

  it('says when a budget selects no pods', async () => {
    const pdb = await budgets().create({
      metadata: { name: 'nothing', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'none' } } },
    });
    await eventRecorded(cp.admin, pdb, 'NoPods', 'No matching pods found');
    const synced = await statusOf('nothing', (p) => p.status?.observedGeneration === 1);
    expect(synced.status).toMatchObject({ expectedPods: 0, currentHealthy: 0, disruptionsAllowed: 0 });
  });

  it('reports pods without a controller, and fails safe on owners without a scale', async () => {
    const pods = cp.admin.resource<Pod>(PODS);
    await pods.create({
      metadata: { name: 'loner', namespace: ns, labels: { app: 'loner' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    const unmanaged = await budgets().create({
      metadata: { name: 'loner', namespace: ns },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'loner' } } },
    });
    await eventRecorded(
      cp.admin,
      unmanaged,
      'UnmanagedPods',
      'Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: loner,},' +
        'MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the ' +
        'PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods ' +
        'please set ".spec.minAvailable" field of the PDB to an integer value.',
    );
    const daemonSet = await cp.admin.resource<DaemonSet>(DAEMON_SETS).create({
      metadata: { name: 'agent', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'a', image: 'busybox' }] },
        },
      },
    });
    await pods.create({
      metadata: {
        name: 'agent-1',
        namespace: ns,
        labels: { app: 'agent' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'agent',
            uid: daemonSet.metadata!.uid!,
            controller: true,
          },
        ],
      },
      spec: { containers: [{ name: 'a', image: 'busybox' }] },
    });
    const failing = await budgets().create({
      metadata: { name: 'agent', namespace: ns },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'agent' } } },
    });
    const failed = await statusOf('agent', (p) => p.status?.conditions?.[0]?.reason === 'SyncFailed');
    expect(failed.status?.disruptionsAllowed).toBe(0);
    expect(failed.status?.conditions?.[0]).toMatchObject({
      type: 'DisruptionAllowed',
      status: 'False',
      message: 'daemonsets.apps does not implement the scale subresource',
    });
    await eventRecorded(
      cp.admin,
      failing,
      'CalculateExpectedPodCountFailed',
      'Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource',
    );
  }, 30_000);

  it('forgets evictions never carried out after the deletion timeout', async () => {
    const [pod] = (await cp.admin.resource<Pod>(PODS).list(ns, { labelSelector: 'app=web' })).items;
    const podName = pod!.metadata!.name!;
    const current = await statusOf('web', (p) => p.status?.disruptionsAllowed === 1);
    // As if the eviction subresource let this pod go three minutes ago, and a pod that is gone.
    await budgets().updateStatus({
      ...current,
      status: {
        ...current.status!,
        disruptedPods: { [podName]: at(Date.now() - 3 * 60_000), vanished: at(Date.now()) },
      },
    });
    const cleaned = await statusOf('web', (p) => p.status?.disruptedPods === undefined);
    expect(cleaned.status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 1 });
    await eventRecorded(
      cp.admin,
      pod!,
      'NotDeleted',
      `Pod was expected by PDB ${ns}/${ns} to be deleted but it wasn't`,
    );
    // A recent eviction keeps the pod out of the healthy count.
    const fresh = await budgets().get(ns, 'web');
    await budgets().updateStatus({
      ...fresh,
      status: { ...fresh.status!, disruptedPods: { [podName]: at(Date.now()) } },
    });
    const counted = await statusOf('web', (p) => p.status?.currentHealthy === 2);
    expect(counted.status).toMatchObject({
      disruptionsAllowed: 0,
      disruptedPods: { [podName]: expect.any(String) },
    });
  }, 30_000);

  it('turns a stale DisruptionTarget condition of a pod nobody deleted back to False', async () => {
    const pods = cp.admin.resource<Pod>(PODS);
    const pod = await pods.create({
      metadata: { name: 'stale', namespace: ns },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    await markPodReady(cp.admin, pod);
    const threeMinutesAgo = at(Date.now() - 3 * 60_000);
    // Conditions merge by type: the fake kubelet's own status writes keep this one.
    const staleCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
      lastTransitionTime: threeMinutesAgo,
    };
    await pods.patch(
      ns,
      'stale',
      'strategic',
      { status: { conditions: [staleCondition] } },
      { subresource: 'status' },
    );
    const reset = await eventually(async () => {
      const current = await pods.get(ns, 'stale');
      const condition = current.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      return condition?.status === 'False' ? condition : undefined;
    });
    expect(reset.reason).toBeUndefined();
    expect(reset.message).toBeUndefined();
    expect(reset.lastTransitionTime).not.toBe(threeMinutesAgo);
  });
});
