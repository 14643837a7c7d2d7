// pods/eviction through the real control plane (the disruption controller keeps the budgets'
// status): evictions use up a budget's allowed disruptions and are refused with 429 once none
// are left; pods that disrupt nothing go regardless; unready pods follow unhealthyPodEvictionPolicy;
// two budgets, a wrong name or type, dry runs and preconditions answer as Kubernetes does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { Status } from '../../../src/api/types/meta-v1.generated.js';
import type { PodDisruptionBudget } from '../../../src/api/types/policy-v1.generated.js';
import { evictionDeleteOptions, takeDisruption } from '../../../src/apiserver/handlers/pod-eviction.js';
import { StatusError } from '../../../src/apiserver/status.js';
import { PDBS, PODS } from '../../../src/client/resources.js';
import { ApiError } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { createNamespace, markPodReady } from '../controllers/workload-support.js';

const REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";

describe('takeDisruption (checkAndDecrement)', () => {
  const budget = (status: Partial<NonNullable<PodDisruptionBudget['status']>>, generation = 1) => ({
    metadata: { name: 'b', generation },
    status: {
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
      ...status,
    },
  });
  const refusal = (pdb: PodDisruptionBudget): StatusError => {
    try {
      takeDisruption('p', pdb, false);
    } catch (error) {
      if (error instanceof StatusError) return error;
    }
    throw new Error('not refused');
  };

  it('takes one disruption, notes the pod and flips the condition at zero', () => {
    const taken = takeDisruption('p', budget({}), false);
    expect(taken.status?.disruptionsAllowed).toBe(0);
    expect(Object.keys(taken.status?.disruptedPods ?? {})).toEqual(['p']);
    expect(taken.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    expect(takeDisruption('p', budget({}), true).status?.disruptedPods).toBeUndefined();
  });

  it('refuses while the status lags the spec, with a hint to retry in 10 s', () => {
    const error = refusal(budget({}, 2));
    expect([error.code, error.reason, error.message]).toEqual([429, 'TooManyRequests', REFUSED]);
    expect(error.details).toEqual({
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget b is still being processed by the server.',
        },
      ],
      retryAfterSeconds: 10,
    });
  });

  it('forbids evictions under a negative or overflowing budget', () => {
    expect(refusal(budget({ disruptionsAllowed: -1 })).message).toBe(
      'poddisruptionbudget.policy "b" is forbidden: pdb disruptions allowed is negative',
    );
    const many = Object.fromEntries(
      Array.from({ length: 2001 }, (_, i) => [`p${i}`, '2025-01-01T00:00:00Z']),
    );
    expect(refusal(budget({ disruptedPods: many })).code).toBe(403);
  });

  it('merges the request’s dryRun into the Eviction’s delete options', () => {
    const eviction = {
      deleteOptions: {
        gracePeriodSeconds: 5,
        preconditions: { uid: 'u' },
        orphanDependents: true,
        dryRun: ['All'],
      },
    };
    expect(evictionDeleteOptions(eviction, false)).toEqual({
      gracePeriodSeconds: 5,
      preconditions: { uid: 'u' },
      propagationPolicy: 'Orphan',
      dryRun: true,
    });
    expect(evictionDeleteOptions({}, false)).toEqual({ dryRun: false });
    expect(() => evictionDeleteOptions({ deleteOptions: { dryRun: ['Some'] } }, false)).toThrow(
      /Unsupported value/,
    );
  });
});

describe('pods/eviction', () => {
  let cp: InProcessControlPlane;
  const ns = 'evict';
  beforeAll(async () => {
    cp = await startInProcessControlPlane();
    await createNamespace(cp.admin, ns);
  }, 60_000);
  afterAll(() => cp?.stop());

  const pods = () => cp.admin.resource<Pod>(PODS);
  const budgets = () => cp.admin.resource<PodDisruptionBudget>(PDBS);

  async function readyPods(app: string, count: number, ready = true): Promise<void> {
    for (let i = 0; i < count; i++) {
      const pod = await pods().create({
        metadata: { name: `${app}-${i}`, namespace: ns, labels: { app } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
      });
      if (ready) await markPodReady(cp.admin, pod);
      else
        await pods().patch(
          ns,
          pod.metadata!.name!,
          'merge',
          { status: { phase: 'Running' } },
          { subresource: 'status' },
        );
    }
  }

  async function budget(
    name: string,
    spec: PodDisruptionBudget['spec'],
    check: (pdb: PodDisruptionBudget) => boolean,
  ) {
    await budgets().create({ metadata: { name, namespace: ns }, spec });
    return budgetBecomes(name, check);
  }

  function budgetBecomes(name: string, check: (pdb: PodDisruptionBudget) => boolean) {
    return eventually(async () => {
      const pdb = await budgets().get(ns, name);
      return pdb.status?.observedGeneration === 1 && check(pdb) ? pdb : undefined;
    });
  }

  const evict = (name: string, body: Record<string, unknown> = {}, dryRun = false) =>
    pods().createSubresource<Status>(
      ns,
      name,
      'eviction',
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns }, ...body },
      { dryRun },
    );

  async function failure(call: Promise<unknown>): Promise<ApiError> {
    try {
      await call;
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    throw new Error('the eviction succeeded');
  }

  const exists = async (name: string) => (await pods().list(ns)).items.some((p) => p.metadata?.name === name);

  it('evicts a pod no budget covers: DisruptionTarget first, then the delete', async () => {
    const pod = await pods().create({
      metadata: { name: 'free', namespace: ns, finalizers: ['test.tkube.dev/hold'] },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    await markPodReady(cp.admin, pod);
    const status = await evict('free');
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    const held = await pods().get(ns, 'free');
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    expect(held.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
    });
    await pods().patch(ns, 'free', 'merge', { metadata: { finalizers: null } });
  });

  it('uses up the budget, then answers 429 TooManyRequests', async () => {
    await readyPods('db', 3);
    await budget(
      'db',
      { minAvailable: 2, selector: { matchLabels: { app: 'db' } } },
      (p) => p.status?.disruptionsAllowed === 1,
    );
    await evict('db-0');
    expect(await exists('db-0')).toBe(false);
    await budgetBecomes('db', (p) => p.status?.currentHealthy === 2 && p.status.disruptionsAllowed === 0);
    const refused = await failure(evict('db-1'));
    expect([refused.code, refused.reason, refused.message]).toEqual([429, 'TooManyRequests', REFUSED]);
    expect(refused.details?.causes).toEqual([
      {
        reason: 'DisruptionBudget',
        message: 'The disruption budget db needs 2 healthy pods and has 2 currently',
      },
    ]);
    expect(await exists('db-1')).toBe(true);
  });

  it('refuses unmanaged pods under maxUnavailable; once evicted, a pod no longer counts', async () => {
    // A finalizer keeps the evicted pod (marked for deletion) so the controller's view can be read.
    const pod = await pods().create({
      metadata: { name: 'kv-0', namespace: ns, labels: { app: 'kv' }, finalizers: ['test.tkube.dev/hold'] },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    await markPodReady(cp.admin, pod);
    // Unmanaged pods under maxUnavailable expect nothing: no disruption is allowed.
    await budget(
      'kv',
      { maxUnavailable: 1, selector: { matchLabels: { app: 'kv' } } },
      (p) => p.status?.currentHealthy === 1,
    );
    expect((await failure(evict('kv-0'))).code).toBe(429);
    await budgets().patch(ns, 'kv', 'merge', { spec: { maxUnavailable: null, minAvailable: 0 } });
    await eventually(async () => {
      const pdb = await budgets().get(ns, 'kv');
      return pdb.status?.observedGeneration === 2 && pdb.status.disruptionsAllowed === 1 ? pdb : undefined;
    });
    await evict('kv-0');
    const settled = await eventually(async () => {
      const pdb = await budgets().get(ns, 'kv');
      // The controller drops the pod from disruptedPods once it sees it marked for deletion.
      return pdb.status?.currentHealthy === 0 && !pdb.status.disruptedPods ? pdb : undefined;
    });
    expect(settled.status).toMatchObject({ disruptionsAllowed: 0, expectedPods: 1 });
    await pods().patch(ns, 'kv-0', 'merge', { metadata: { finalizers: null } });
  });

  it('deletes pending pods and pods being deleted without consulting the budget', async () => {
    await pods().create({
      metadata: { name: 'db-pending', namespace: ns, labels: { app: 'db' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    await evict('db-pending');
    expect(await exists('db-pending')).toBe(false);
  });

  it('lets unready pods go as unhealthyPodEvictionPolicy says', async () => {
    // `ready` Ready pods and one Running but unready pod `<app>-sick`, under minAvailable 2.
    const group = async (app: string, ready: number, check: (pdb: PodDisruptionBudget) => boolean) => {
      await readyPods(app, ready);
      await readyPods(`${app}-sick`, 1, false);
      await pods().patch(ns, `${app}-sick-0`, 'merge', { metadata: { labels: { app } } });
      await budget(app, { minAvailable: 2, selector: { matchLabels: { app } } }, check);
    };
    // IfHealthyBudget (the default): the budget is met without the unready pod.
    await group('cache', 2, (p) => p.status?.currentHealthy === 2);
    await evict('cache-sick-0');
    expect(await exists('cache-sick-0')).toBe(false);
    expect((await budgets().get(ns, 'cache')).status?.disruptedPods).toBeUndefined();
    // Not met: the unready pod is protected too...
    await group('warm', 1, (p) => p.status?.expectedPods === 2);
    expect((await failure(evict('warm-sick-0'))).code).toBe(429);
    // ...unless the policy always allows evicting unhealthy pods.
    await budgets().patch(ns, 'warm', 'merge', { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
    await evict('warm-sick-0');
    expect(await exists('warm-sick-0')).toBe(false);
  });

  it('refuses a pod two budgets select with a 500', async () => {
    await readyPods('twin', 1);
    for (const name of ['twin-a', 'twin-b'])
      await budget(name, { minAvailable: 0, selector: { matchLabels: { app: 'twin' } } }, () => true);
    const error = await failure(evict('twin-0'));
    expect([error.code, error.message]).toEqual([
      500,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    ]);
    expect(await exists('twin-0')).toBe(true);
  });

  it('checks the name and type of the Eviction, and honours dryRun and preconditions', async () => {
    await readyPods('solo', 1);
    const mismatch = await failure(evict('solo-0', { metadata: { name: 'other' } }));
    expect([mismatch.code, mismatch.message]).toEqual([
      400,
      'name in URL does not match name in Eviction object',
    ]);
    const wrongType = await failure(evict('solo-0', { apiVersion: 'v1' }));
    expect(wrongType.message).toBe(
      'the API version in the data (v1) does not match the expected API version (policy/v1)',
    );
    await evict('solo-0', {}, true);
    await evict('solo-0', { deleteOptions: { dryRun: ['All'] } });
    expect(await exists('solo-0')).toBe(true);
    const stale = await failure(
      evict('solo-0', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } }),
    );
    expect(stale.code).toBe(409);
    expect(stale.message).toMatch(
      /^Operation cannot be fulfilled on Pod "solo-0": the UID in the precondition \(not-the-uid\) does not match the UID in record/,
    );
    await evict('solo-0', { apiVersion: 'policy/v1beta1' });
    expect(await exists('solo-0')).toBe(false);
  });
});
