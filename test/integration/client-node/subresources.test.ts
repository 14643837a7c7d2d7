// @kubernetes/client-node writes to subresources: strategic merge patches of `scale` (every
// scalable kind), its resourceVersion and validation, and `/status` writes that carry metadata
// changes, kept or reset as each kind's upstream status strategy does.
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Scale,
  type V1Status,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;
let apps: AppsV1Api;
let batch: BatchV1Api;
let networking: NetworkingV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  batch = cluster.kubeConfig.makeApiClient(BatchV1Api);
  networking = cluster.kubeConfig.makeApiClient(NetworkingV1Api);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

const namespace = 'default';
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const labels = { app: 'sub' };
const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };

async function failure(call: Promise<unknown>): Promise<V1Status> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return JSON.parse(error.body as string) as V1Status;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('scale subresources', () => {
  it('take strategic merge patches for every scalable kind', async () => {
    const spec = { replicas: 1, selector: { matchLabels: labels }, template };
    await apps.createNamespacedDeployment({ namespace, body: { metadata: { name: 'web' }, spec } });
    await apps.createNamespacedReplicaSet({ namespace, body: { metadata: { name: 'web' }, spec } });
    await apps.createNamespacedStatefulSet({
      namespace,
      body: { metadata: { name: 'web' }, spec: { ...spec, serviceName: 'web' } },
    });
    await core.createNamespacedReplicationController({
      namespace,
      body: { metadata: { name: 'web' }, spec: { replicas: 1, selector: labels, template } },
    });
    const body = { spec: { replicas: 3 } };
    const scales = [
      await apps.patchNamespacedDeploymentScale({ namespace, name: 'web', body }, strategic),
      await apps.patchNamespacedReplicaSetScale({ namespace, name: 'web', body }, strategic),
      await apps.patchNamespacedStatefulSetScale({ namespace, name: 'web', body }, strategic),
      await core.patchNamespacedReplicationControllerScale({ namespace, name: 'web', body }, strategic),
    ];
    for (const scale of scales) expect(scale.spec?.replicas).toBe(3);
    expect((await apps.readNamespacedDeployment({ namespace, name: 'web' })).spec?.replicas).toBe(3);
    expect((await core.readNamespacedReplicationController({ namespace, name: 'web' })).spec?.replicas).toBe(
      3,
    );
  });

  it('honours the scale resourceVersion and validates replicas as a Scale', async () => {
    const spec = { replicas: 1, selector: { matchLabels: labels }, template };
    await apps.createNamespacedDeployment({ namespace, body: { metadata: { name: 'versioned' }, spec } });
    // The controllers write the Deployment too: read and write until no one came between.
    const scale = await apps.readNamespacedDeploymentScale({ namespace, name: 'versioned' });
    let updated: V1Scale | undefined;
    for (let attempt = 0; updated === undefined; attempt++) {
      const current = await apps.readNamespacedDeploymentScale({ namespace, name: 'versioned' });
      try {
        updated = await apps.replaceNamespacedDeploymentScale({
          namespace,
          name: 'versioned',
          body: { ...current, spec: { replicas: 2 } },
        });
      } catch (error) {
        if (!(error instanceof ApiException) || error.code !== 409 || attempt > 20) throw error;
      }
    }
    expect(updated.spec?.replicas).toBe(2);
    const stale = await failure(
      apps.replaceNamespacedDeploymentScale({
        namespace,
        name: 'versioned',
        body: { ...scale, spec: { replicas: 4 } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "versioned": the object has been modified; please apply your changes to the latest version and try again',
    );
    // Without a resourceVersion the scale applies to the current Deployment.
    const unconditional = await apps.replaceNamespacedDeploymentScale({
      namespace,
      name: 'versioned',
      body: { metadata: { name: 'versioned' }, spec: { replicas: 5 } },
    });
    expect(unconditional.spec?.replicas).toBe(5);
    const negative = await failure(
      apps.patchNamespacedDeploymentScale(
        { namespace, name: 'versioned', body: { spec: { replicas: -1 } } },
        strategic,
      ),
    );
    expect(negative).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Scale.autoscaling "versioned" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      details: { name: 'versioned', group: 'autoscaling', kind: 'Scale' },
    });
  });
});

describe('status writes', () => {
  it('keep the labels and annotations they carry where the status strategy resets only the spec', async () => {
    await networking.createNamespacedIngress({
      namespace,
      body: {
        metadata: { name: 'ingress' },
        spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
      },
    });
    const ingress = await networking.patchNamespacedIngressStatus(
      {
        namespace,
        name: 'ingress',
        body: {
          metadata: { annotations: { patchedstatus: 'true' }, labels: { status: 'yes' } },
          status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
          spec: { defaultBackend: { service: { name: 'other', port: { number: 81 } } } },
        },
      },
      merge,
    );
    expect(ingress.metadata?.annotations).toEqual({ patchedstatus: 'true' });
    expect(ingress.metadata?.labels).toEqual({ status: 'yes' });
    expect(ingress.status?.loadBalancer?.ingress?.[0]?.ip).toBe('192.0.2.1');
    expect(ingress.spec?.defaultBackend?.service?.name).toBe('web');

    await batch.createNamespacedCronJob({
      namespace,
      body: {
        metadata: { name: 'cron' },
        spec: {
          schedule: '*/1 * * * *',
          jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } },
        },
      },
    });
    const cron = await batch.patchNamespacedCronJobStatus(
      { namespace, name: 'cron', body: { metadata: { annotations: { patchedstatus: 'true' } } } },
      merge,
    );
    expect(cron.metadata?.annotations).toEqual({ patchedstatus: 'true' });
  });

  it('take from the old object what the status strategy keeps (Deployment labels, Pod owners)', async () => {
    const spec = { replicas: 1, selector: { matchLabels: labels }, template };
    await apps.createNamespacedDeployment({
      namespace,
      body: { metadata: { name: 'status', labels: { before: 'yes' } }, spec },
    });
    const deployment = await apps.patchNamespacedDeploymentStatus(
      {
        namespace,
        name: 'status',
        body: {
          metadata: { labels: { after: 'yes' }, annotations: { note: 'kept' } },
          status: { replicas: 0 },
        },
      },
      merge,
    );
    expect(deployment.metadata?.labels).toEqual({ before: 'yes' });
    expect(deployment.metadata?.annotations).toEqual({ note: 'kept' });

    await core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'status' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    const pod = await core.patchNamespacedPodStatus(
      {
        namespace,
        name: 'status',
        body: {
          metadata: {
            labels: { status: 'yes' },
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'abc' }],
          },
        },
      },
      merge,
    );
    expect(pod.metadata?.labels).toEqual({ status: 'yes' });
    expect(pod.metadata?.ownerReferences).toBeUndefined();
  });
});
