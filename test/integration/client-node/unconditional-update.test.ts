// @kubernetes/client-node updates without metadata.resourceVersion: applied to the current
// object where the upstream strategy allows an unconditional update, refused (422) where not.
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  PolicyV1Api,
  type V1Status,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;
let apps: AppsV1Api;
let coordination: CoordinationV1Api;
let policy: PolicyV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  coordination = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
  policy = cluster.kubeConfig.makeApiClient(PolicyV1Api);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The Status a failed call answered with. */
async function failure(call: Promise<unknown>): Promise<V1Status> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return JSON.parse(error.body as string) as V1Status;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('updates without resourceVersion', () => {
  it('applies to the current object of a resource that allows unconditional updates', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'unconditional' }, data: { a: '1' } },
    });
    const updated = await core.replaceNamespacedConfigMap({
      namespace: 'default',
      name: 'unconditional',
      body: { metadata: { name: 'unconditional' }, data: { a: '2' } },
    });
    expect(updated.data).toEqual({ a: '2' });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created.metadata?.resourceVersion),
    );
    // A stale resourceVersion is still a conflict.
    const stale = await failure(
      core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'unconditional',
        body: { metadata: { name: 'unconditional', resourceVersion: created.metadata?.resourceVersion } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.reason).toBe('Conflict');

    await core.createNamespacedResourceQuota({
      namespace: 'default',
      body: { metadata: { name: 'quota' }, spec: { hard: { pods: '5' } } },
    });
    const quota = await core.replaceNamespacedResourceQuota({
      namespace: 'default',
      name: 'quota',
      body: { metadata: { name: 'quota' }, spec: { hard: { pods: '7' } } },
    });
    expect(quota.spec?.hard).toEqual({ pods: '7' });

    const labels = { app: 'unconditional' };
    const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'unconditional' }, spec: { selector: { matchLabels: labels }, template } },
    });
    const deployment = await apps.replaceNamespacedDeployment({
      namespace: 'default',
      name: 'unconditional',
      body: {
        metadata: { name: 'unconditional', labels: { updated: 'yes' } },
        spec: { replicas: 3, selector: { matchLabels: labels }, template },
      },
    });
    expect(deployment.spec?.replicas).toBe(3);
    expect(deployment.metadata?.labels).toEqual({ updated: 'yes' });
    expect(deployment.metadata?.generation).toBe(2);
  });

  it('is refused with the generic registry message where the strategy does not allow it', async () => {
    const lease = await coordination.createNamespacedLease({
      namespace: 'default',
      body: { metadata: { name: 'conditional' }, spec: { holderIdentity: 'a' } },
    });
    const refused = await failure(
      coordination.replaceNamespacedLease({
        namespace: 'default',
        name: 'conditional',
        body: { metadata: { name: 'conditional' }, spec: { holderIdentity: 'b' } },
      }),
    );
    expect(refused).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'leases.coordination.k8s.io "conditional" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      details: {
        name: 'conditional',
        group: 'coordination.k8s.io',
        kind: 'leases',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ],
      },
    });
    const withVersion = await coordination.replaceNamespacedLease({
      namespace: 'default',
      name: 'conditional',
      body: {
        metadata: { name: 'conditional', resourceVersion: lease.metadata?.resourceVersion },
        spec: { holderIdentity: 'b' },
      },
    });
    expect(withVersion.spec?.holderIdentity).toBe('b');

    await policy.createNamespacedPodDisruptionBudget({
      namespace: 'default',
      body: { metadata: { name: 'conditional' }, spec: { minAvailable: 1, selector: {} } },
    });
    const budget = await failure(
      policy.replaceNamespacedPodDisruptionBudget({
        namespace: 'default',
        name: 'conditional',
        body: { metadata: { name: 'conditional' }, spec: { minAvailable: 2, selector: {} } },
      }),
    );
    expect(budget.code).toBe(422);
    expect(budget.message).toBe(
      'poddisruptionbudgets.policy "conditional" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });
});
