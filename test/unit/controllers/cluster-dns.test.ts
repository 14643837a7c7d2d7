// The cluster DNS service through the whole control plane: kube-dns created at start-up as kind
// has it (no selector, internalTrafficPolicy Local), its Endpoints and tkube-managed
// EndpointSlice listing each agent node (ready with the node, fake nodes and nodes with a loopback
// address left out) and left
// alone by the endpointslice controller, and the RBAC of the agents' DNS identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoints, Node, Secret, Service } from '../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../src/api/types/discovery-v1.generated.js';
import { ENDPOINT_SLICES, ENDPOINTS, NODES, SECRETS, SERVICES } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import { ingressService } from '../../../src/controllers/ingress-status/ingress-status-controller.js';
import { CLUSTER_DNS_USER } from '../../../src/controlplane/tkube-policy.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

describe('cluster DNS service and its endpoints', () => {
  let cp: InProcessControlPlane;

  beforeAll(async () => {
    cp = await startInProcessControlPlane();
  }, 30_000);
  afterAll(() => cp?.stop());

  const endpoints = () =>
    cp.admin
      .resource<Endpoints>(ENDPOINTS)
      .get('kube-system', 'kube-dns')
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
  const slices = async () =>
    (
      await cp.admin
        .resource<EndpointSlice>(ENDPOINT_SLICES)
        .list('kube-system', { labelSelector: 'kubernetes.io/service-name=kube-dns' })
    ).items;

  async function addNode(name: string, ip: string, ready: boolean, labels: Record<string, string> = {}) {
    const nodes = cp.admin.resource<Node>(NODES);
    await nodes.create({ metadata: { name, labels } });
    await setReady(name, ip, ready);
  }

  async function setReady(name: string, ip: string, ready: boolean) {
    await cp.admin.resource<Node>(NODES).patch(
      '',
      name,
      'merge',
      {
        status: {
          addresses: [{ type: 'InternalIP', address: ip }],
          conditions: [
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'KubeletReady' : 'KubeletNotReady',
              lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            },
          ],
        },
      },
      { subresource: 'status' },
    );
  }

  it('creates kube-dns at start-up as kind has it, without a selector', async () => {
    const service = await cp.admin.resource<Service>(SERVICES).get('kube-system', 'kube-dns');
    expect(service.metadata?.labels).toEqual({
      'k8s-app': 'kube-dns',
      'kubernetes.io/cluster-service': 'true',
      'kubernetes.io/name': 'CoreDNS',
    });
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      internalTrafficPolicy: 'Local',
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
      ],
    });
    expect(service.spec?.selector).toBeUndefined();
  });

  it('lists each agent node with a reachable address, ready with the node, in the Endpoints and the slice', async () => {
    await addNode('dns-a', '172.30.9.2', true);
    await addNode('dns-b', '172.30.9.3', false);
    await addNode('dns-fake', '172.30.9.4', true, { 'fake.tkube.dev/node': 'true' });
    // Endpoints validation refuses a loopback address: such a node must not block the others.
    await addNode('dns-loopback', '127.0.0.1', true);
    const current = await eventually(async () => {
      const found = await endpoints();
      return found?.subsets?.[0]?.notReadyAddresses?.length === 1 ? found : undefined;
    });
    expect(current.metadata?.labels).toMatchObject({
      'k8s-app': 'kube-dns',
      'endpointslice.kubernetes.io/skip-mirror': 'true',
    });
    expect(current.subsets).toEqual([
      {
        addresses: [{ ip: '172.30.9.2', nodeName: 'dns-a' }],
        notReadyAddresses: [{ ip: '172.30.9.3', nodeName: 'dns-b' }],
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, protocol: 'TCP' },
          { name: 'metrics', port: 9153, protocol: 'TCP' },
        ],
      },
    ]);
    const [slice, ...others] = await slices();
    expect(others).toEqual([]);
    expect(slice!.metadata?.labels).toMatchObject({
      'kubernetes.io/service-name': 'kube-dns',
      'endpointslice.kubernetes.io/managed-by': 'cluster-dns.tkube.dev',
    });
    expect(slice!.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Service', name: 'kube-dns', controller: true }),
    ]);
    expect(slice!.addressType).toBe('IPv4');
    expect(slice!.endpoints).toEqual([
      {
        addresses: ['172.30.9.2'],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: 'dns-a',
      },
      {
        addresses: ['172.30.9.3'],
        conditions: { ready: false, serving: false, terminating: false },
        nodeName: 'dns-b',
      },
    ]);
  });

  it('follows node readiness and removal, and restores a slice edited by hand', async () => {
    await setReady('dns-b', '172.30.9.3', true);
    await eventually(async () =>
      (await endpoints())?.subsets?.[0]?.addresses?.length === 2 ? true : undefined,
    );
    await cp.admin.resource<Node>(NODES).delete('', 'dns-a');
    await eventually(async () => {
      const [slice] = await slices();
      return slice?.endpoints.length === 1 && slice.endpoints[0]!.nodeName === 'dns-b' ? true : undefined;
    });
    const [slice] = await slices();
    await cp.admin.resource<EndpointSlice>(ENDPOINT_SLICES).update({ ...slice!, endpoints: [] });
    await eventually(async () => ((await slices())[0]?.endpoints.length === 1 ? true : undefined));
    expect((await endpoints())?.subsets?.[0]?.addresses).toEqual([{ ip: '172.30.9.3', nodeName: 'dns-b' }]);
  });

  it('gives the ingress service endpoints, with the node and zone hints its PreferSameNode asks for', async () => {
    await addNode('dns-c', '172.30.9.5', true, { 'topology.kubernetes.io/zone': 'zone-c' });
    await addNode('dns-d', '172.30.9.6', false);
    await cp.admin.resource<Service>(SERVICES).create(ingressService());
    const slice = await eventually(async () => {
      const [found] = (
        await cp.admin
          .resource<EndpointSlice>(ENDPOINT_SLICES)
          .list('kube-system', { labelSelector: 'kubernetes.io/service-name=tkube-ingress' })
      ).items;
      return found?.endpoints?.length === 3 ? found : undefined;
    });
    expect(slice.endpoints).toEqual([
      {
        addresses: ['172.30.9.3'],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: 'dns-b',
        hints: { forNodes: [{ name: 'dns-b' }] },
      },
      {
        addresses: ['172.30.9.5'],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: 'dns-c',
        zone: 'zone-c',
        hints: { forZones: [{ name: 'zone-c' }], forNodes: [{ name: 'dns-c' }] },
      },
      // Not ready: no hint, as the endpointslice controller leaves it.
      {
        addresses: ['172.30.9.6'],
        conditions: { ready: false, serving: false, terminating: false },
        nodeName: 'dns-d',
      },
    ]);
  });

  it('lets the agents DNS identity read what CoreDNS reads, and nothing more', async () => {
    const dns = cp.controlPlane.loopbackClient(
      { name: CLUSTER_DNS_USER, groups: ['system:authenticated'] },
      'test',
    );
    expect((await dns.resource<Service>(SERVICES).list('')).items.length).toBeGreaterThan(1);
    expect((await dns.resource<EndpointSlice>(ENDPOINT_SLICES).list('')).items.length).toBeGreaterThan(0);
    await expect(dns.resource<Secret>(SECRETS).list('kube-system')).rejects.toMatchObject({ code: 403 });
    await expect(dns.resource<Service>(SERVICES).delete('kube-system', 'kube-dns')).rejects.toMatchObject({
      code: 403,
    });
  });
});
