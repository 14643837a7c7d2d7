// @kubernetes/client-node against the EndpointSlice mirroring controller: Endpoints written by
// hand for a Service without a selector appear as EndpointSlices, follow the Endpoints' changes
// and go with them; skip-mirror Endpoints and Services with a selector are left alone.
import { CoreV1Api, DiscoveryV1Api, type V1EndpointSlice } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';
import { eventually } from '../../support/control-plane.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;
let discovery: DiscoveryV1Api;
const namespace = 'mirroring';
const MANAGED_BY = 'endpointslicemirroring-controller.k8s.io';

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

async function mirroredSlices(service: string, ns = namespace): Promise<V1EndpointSlice[]> {
  const list = await discovery.listNamespacedEndpointSlice({
    namespace: ns,
    labelSelector: `kubernetes.io/service-name=${service},endpointslice.kubernetes.io/managed-by=${MANAGED_BY}`,
  });
  return list.items;
}

/** Waits until the mirrored slices satisfy `check`. */
function slicesBecome(
  service: string,
  check: (slices: V1EndpointSlice[]) => boolean,
): Promise<V1EndpointSlice[]> {
  return eventually(async () => {
    const slices = await mirroredSlices(service);
    return check(slices) ? slices : undefined;
  });
}

describe('EndpointSlice mirroring', () => {
  it('mirrors custom Endpoints through create, update and delete', async () => {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'custom' }, spec: { ports: [{ name: 'example', port: 80 }] } },
    });
    const endpoints = await core.createNamespacedEndpoints({
      namespace,
      body: {
        metadata: {
          name: 'custom',
          labels: { team: 'a' },
          annotations: {
            note: 'kept',
            'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z',
          },
        },
        subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }],
      },
    });
    const [created] = await slicesBecome('custom', (slices) => slices.length === 1);
    expect(created?.metadata?.name).toMatch(/^custom-/);
    expect(created?.metadata?.labels).toEqual({
      team: 'a',
      'kubernetes.io/service-name': 'custom',
      'endpointslice.kubernetes.io/managed-by': MANAGED_BY,
    });
    expect(created?.metadata?.annotations).toEqual({ note: 'kept' });
    expect(created?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        name: 'custom',
        uid: endpoints.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(created?.addressType).toBe('IPv4');
    expect(created?.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
    expect(created?.endpoints).toEqual([{ addresses: ['10.1.2.3'], conditions: { ready: true } }]);

    await core.replaceNamespacedEndpoints({
      namespace,
      name: 'custom',
      body: {
        metadata: { name: 'custom', labels: { team: 'b' } },
        subsets: [
          {
            addresses: [{ ip: '10.2.3.4', nodeName: 'node-1' }],
            notReadyAddresses: [{ ip: '10.2.3.5' }, { ip: 'fd00::5' }],
            ports: [{ port: 80 }],
          },
        ],
      },
    });
    const updated = await slicesBecome(
      'custom',
      (slices) => slices.length === 2 && slices.every((slice) => slice.metadata?.labels?.team === 'b'),
    );
    const v4 = updated.find((slice) => slice.addressType === 'IPv4');
    const v6 = updated.find((slice) => slice.addressType === 'IPv6');
    // The IPv4 slice is updated in place; the IPv6 address gets a slice of its own.
    expect(v4?.metadata?.name).toBe(created?.metadata?.name);
    expect(v4?.metadata?.annotations ?? {}).toEqual({});
    expect(v4?.endpoints).toEqual(
      expect.arrayContaining([
        { addresses: ['10.2.3.4'], conditions: { ready: true }, nodeName: 'node-1' },
        { addresses: ['10.2.3.5'], conditions: { ready: false } },
      ]),
    );
    expect(v4?.endpoints).toHaveLength(2);
    expect(v6?.endpoints).toEqual([{ addresses: ['fd00::5'], conditions: { ready: false } }]);

    await core.deleteNamespacedEndpoints({ namespace, name: 'custom' });
    await slicesBecome('custom', (slices) => slices.length === 0);
  });

  it('leaves skip-mirror Endpoints alone and drops the slices of a Service that gains a selector', async () => {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'skipped' }, spec: { ports: [{ port: 80 }] } },
    });
    await core.createNamespacedEndpoints({
      namespace,
      body: {
        metadata: { name: 'skipped', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip: '10.3.0.1' }], ports: [{ port: 80 }] }],
      },
    });
    // Another mirrored Endpoints as a marker that the controller has caught up.
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'marker' }, spec: { ports: [{ port: 80 }] } },
    });
    await core.createNamespacedEndpoints({
      namespace,
      body: {
        metadata: { name: 'marker' },
        subsets: [{ addresses: [{ ip: '10.3.0.3' }], ports: [{ port: 80 }] }],
      },
    });
    await slicesBecome('marker', (slices) => slices.length === 1);
    expect(await mirroredSlices('skipped')).toEqual([]);
    expect(await mirroredSlices('kubernetes', 'default')).toEqual([]);

    // The marker's Service gains a selector: its mirrored slice goes.
    await core.patchNamespacedService({
      namespace,
      name: 'marker',
      body: [{ op: 'add', path: '/spec/selector', value: { app: 'y' } }],
    });
    await slicesBecome('marker', (slices) => slices.length === 0);
  });
});
