// @kubernetes/client-node reading the `default/kubernetes` Endpoints and EndpointSlice that the
// apiserver's endpoint reconciler keeps pointing at itself, as kube-apiserver's does.
import { CoreV1Api, DiscoveryV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advertiseAddress,
  KubernetesEndpointsReconciler,
} from '../../../src/controlplane/kubernetes-endpoints.js';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;
let discovery: DiscoveryV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

// Bound to 127.0.0.1 only, the in-process apiserver advertises the host's address, as upstream.
const address = advertiseAddress([]) ?? '';

describe('the kubernetes Endpoints and EndpointSlice', () => {
  it('point at the apiserver, and the Service targets its port', async () => {
    const port = cluster.controlPlane.port;
    const service = await core.readNamespacedService({ namespace: 'default', name: 'kubernetes' });
    expect(service.spec?.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }]);

    const endpoints = await core.readNamespacedEndpoints({ namespace: 'default', name: 'kubernetes' });
    expect(endpoints.metadata?.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(endpoints.subsets).toEqual([
      { addresses: [{ ip: address }], ports: [{ name: 'https', port, protocol: 'TCP' }] },
    ]);

    const slices = await discovery.listNamespacedEndpointSlice({
      namespace: 'default',
      labelSelector: 'kubernetes.io/service-name=kubernetes',
    });
    expect(slices.items).toHaveLength(1);
    const [slice] = slices.items;
    expect(slice?.metadata?.name).toBe('kubernetes');
    expect(slice?.addressType).toBe('IPv4');
    expect(slice?.endpoints).toEqual([{ addresses: [address], conditions: { ready: true } }]);
    expect(slice?.ports).toEqual([{ name: 'https', port, protocol: 'TCP' }]);
  });

  it('are repaired by the next reconcile after someone changes them, and left alone when right', async () => {
    const port = cluster.controlPlane.port;
    const endpoints = await core.readNamespacedEndpoints({ namespace: 'default', name: 'kubernetes' });
    await core.replaceNamespacedEndpoints({
      namespace: 'default',
      name: 'kubernetes',
      body: { ...endpoints, metadata: { ...endpoints.metadata, labels: {} }, subsets: [] },
    });
    await discovery.deleteNamespacedEndpointSlice({ namespace: 'default', name: 'kubernetes' });

    const reconciler = new KubernetesEndpointsReconciler(cluster.controlPlane.apiServer, address, port);
    await reconciler.reconcile();
    const repaired = await core.readNamespacedEndpoints({ namespace: 'default', name: 'kubernetes' });
    expect(repaired.subsets?.[0]?.addresses).toEqual([{ ip: address }]);
    expect(repaired.metadata?.labels?.['endpointslice.kubernetes.io/skip-mirror']).toBe('true');
    const slice = await discovery.readNamespacedEndpointSlice({ namespace: 'default', name: 'kubernetes' });
    expect(slice.endpoints).toEqual([{ addresses: [address], conditions: { ready: true } }]);

    await reconciler.reconcile();
    const again = await core.readNamespacedEndpoints({ namespace: 'default', name: 'kubernetes' });
    const sliceAgain = await discovery.readNamespacedEndpointSlice({
      namespace: 'default',
      name: 'kubernetes',
    });
    expect(again.metadata?.resourceVersion).toBe(repaired.metadata?.resourceVersion);
    expect(sliceAgain.metadata?.resourceVersion).toBe(slice.metadata?.resourceVersion);
  });
});
