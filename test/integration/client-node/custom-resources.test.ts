// controller-runtime's way with CRDs, reproduced with @kubernetes/client-node against a real control
// plane (in this process, real TLS): install CRDs, wait for Established, create a custom resource,
// watch it, update its status through the status subresource, and see the events arrive.
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let kubeConfig: KubeConfig;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  kubeConfig = cluster.kubeConfig;
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

const CRD: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'memcacheds.cache.example.com' },
  spec: {
    group: 'cache.example.com',
    scope: 'Namespaced',
    names: { plural: 'memcacheds', singular: 'memcached', kind: 'Memcached', listKind: 'MemcachedList' },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer', format: 'int32' } } },
              status: {
                type: 'object',
                properties: { nodes: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
      },
    ],
  },
};

const target = {
  group: 'cache.example.com',
  version: 'v1alpha1',
  namespace: 'default',
  plural: 'memcacheds',
};

interface Memcached {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion?: string; generation?: number };
  spec?: { size?: number };
  status?: { nodes?: string[] };
}

describe('controller-runtime flow with @kubernetes/client-node', () => {
  it('installs a CRD, waits for Established, creates, watches and updates status', async () => {
    const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
    const objects = kubeConfig.makeApiClient(CustomObjectsApi);
    const started = performance.now();
    await extensions.createCustomResourceDefinition({ body: CRD });
    // envtest's WaitForCRDs: poll until every CRD is Established.
    for (;;) {
      const crd = await extensions.readCustomResourceDefinition({ name: 'memcacheds.cache.example.com' });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      expect(performance.now() - started).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const events: { type: string; object: Memcached }[] = [];
    const watching = await new Watch(kubeConfig).watch(
      '/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds',
      { allowWatchBookmarks: false },
      (type, object: Memcached) => events.push({ type, object }),
      () => {},
    );
    try {
      const created = (await objects.createNamespacedCustomObject({
        ...target,
        body: {
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          metadata: { name: 'sample' },
          spec: { size: 3 },
        },
      })) as Memcached;
      expect(created.metadata.generation).toBe(1);

      // The reconciler reads the object, then writes status with the resourceVersion it read.
      const current = (await objects.getNamespacedCustomObject({ ...target, name: 'sample' })) as Memcached;
      const updated = (await objects.replaceNamespacedCustomObjectStatus({
        ...target,
        name: 'sample',
        body: { ...current, status: { nodes: ['sample-0', 'sample-1', 'sample-2'] } },
      })) as Memcached;
      expect(updated.status).toEqual({ nodes: ['sample-0', 'sample-1', 'sample-2'] });
      expect(updated.metadata.generation).toBe(1);

      // A stale resourceVersion is a conflict, as the reconciler expects.
      await expect(
        objects.replaceNamespacedCustomObjectStatus({
          ...target,
          name: 'sample',
          body: { ...current, status: {} },
        }),
      ).rejects.toMatchObject({ code: 409 });

      const deadline = Date.now() + 5_000;
      while (events.length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
      expect(events[1]!.object.status).toEqual({ nodes: ['sample-0', 'sample-1', 'sample-2'] });
      expect(events[1]!.object.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);

      const list = (await objects.listNamespacedCustomObject(target)) as { kind: string; items: Memcached[] };
      expect(list.kind).toBe('MemcachedList');
      expect(list.items.map((item) => item.metadata.name)).toEqual(['sample']);
    } finally {
      watching.abort();
    }
  });
});
