// tkube's ingress controller through the whole control plane: the default IngressClass `tkube`
// created at start-up, the LoadBalancer service `kube-system/tkube-ingress` with the first
// Ingress of the class (so clusters without Ingresses keep their addresses), the service's
// endpoints listing the agent nodes on ports 80 and 443, the service's load balancer address
// published into the status of the Ingresses the agents serve (and not into other
// controllers'), the RBAC of the agents' ingress part, and the DefaultIngressClass admission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node, Secret, Service } from '../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../src/api/types/discovery-v1.generated.js';
import type { Ingress, IngressClass } from '../../../src/api/types/networking-v1.generated.js';
import {
  ENDPOINT_SLICES,
  INGRESS_CLASSES,
  INGRESSES,
  NODES,
  SECRETS,
  SERVICES,
} from '../../../src/client/resources.js';
import { POD_NETWORK_USER } from '../../../src/controlplane/tkube-policy.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

describe('ingress class, service and status', () => {
  let cp: InProcessControlPlane;

  beforeAll(async () => {
    cp = await startInProcessControlPlane();
  }, 30_000);
  afterAll(() => cp?.stop());

  const backend = { service: { name: 'web', port: { number: 80 } } };

  it('creates the default class at start-up and the LoadBalancer service with the first Ingress', async () => {
    const ingressClass = await cp.admin.resource<IngressClass>(INGRESS_CLASSES).get('', 'tkube');
    expect(ingressClass.spec?.controller).toBe('tkube.dev/ingress');
    expect(ingressClass.metadata?.annotations?.['ingressclass.kubernetes.io/is-default-class']).toBe('true');
    const services = cp.admin.resource<Service>(SERVICES);
    await expect(services.get('kube-system', 'tkube-ingress')).rejects.toMatchObject({ code: 404 });
    await cp.admin
      .resource<Ingress>(INGRESSES)
      .create({ metadata: { name: 'ours', namespace: 'default' }, spec: { defaultBackend: backend } });
    const service = await eventually(() =>
      services.get('kube-system', 'tkube-ingress').catch(() => undefined),
    );
    expect(service.spec?.type).toBe('LoadBalancer');
    expect(service.spec?.selector).toBeUndefined();
    expect(service.spec?.clusterIP).toMatch(/^10\.96\./);
    expect(service.spec?.ports?.map((port) => [port.name, port.port, typeof port.nodePort])).toEqual([
      ['http', 80, 'number'],
      ['https', 443, 'number'],
    ]);
  });

  it('lists the agent nodes on ports 80 and 443 as the service endpoints', async () => {
    await cp.admin.resource<Node>(NODES).create({ metadata: { name: 'ig-node' } });
    await cp.admin.resource<Node>(NODES).patch(
      '',
      'ig-node',
      'merge',
      {
        status: {
          addresses: [{ type: 'InternalIP', address: '172.30.9.7' }],
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
        },
      },
      { subresource: 'status' },
    );
    const slice = await eventually(async () => {
      const items = (
        await cp.admin
          .resource<EndpointSlice>(ENDPOINT_SLICES)
          .list('kube-system', { labelSelector: 'kubernetes.io/service-name=tkube-ingress' })
      ).items;
      return items[0]?.endpoints.length ? items[0] : undefined;
    });
    expect(slice.endpoints.map((endpoint) => [endpoint.addresses, endpoint.conditions?.ready])).toEqual([
      [['172.30.9.7'], true],
    ]);
    expect(slice.ports?.map((port) => [port.name, port.port])).toEqual([
      ['http', 80],
      ['https', 443],
    ]);
  });

  it("publishes the service's address in the status of the Ingresses the agents serve", async () => {
    const ingresses = cp.admin.resource<Ingress>(INGRESSES);
    await cp.admin.resource<IngressClass>(INGRESS_CLASSES).create({
      metadata: { name: 'other' },
      spec: { controller: 'example.com/other' },
    });
    await ingresses.create({
      metadata: { name: 'theirs', namespace: 'default' },
      spec: { ingressClassName: 'other', defaultBackend: backend },
    });
    const services = cp.admin.resource<Service>(SERVICES);
    const service = await services.get('kube-system', 'tkube-ingress');
    await services.updateStatus({
      ...service,
      status: { loadBalancer: { ingress: [{ ip: '172.30.9.224', ipMode: 'VIP' }] } },
    });
    const ours = await eventually(async () => {
      const found = await ingresses.get('default', 'ours');
      return found.status?.loadBalancer?.ingress ? found : undefined;
    });
    expect(ours.status?.loadBalancer?.ingress).toEqual([{ ip: '172.30.9.224' }]);
    expect((await ingresses.get('default', 'theirs')).status?.loadBalancer?.ingress).toBeUndefined();
  });

  it('lets the agents read Ingresses, classes, services and Secrets, but not write Ingresses', async () => {
    const agent = cp.controlPlane.loopbackClient(
      { name: POD_NETWORK_USER, groups: ['system:authenticated'] },
      'test',
    );
    expect((await agent.resource<Ingress>(INGRESSES).list('')).items.length).toBeGreaterThan(0);
    expect((await agent.resource<IngressClass>(INGRESS_CLASSES).list('')).items.length).toBeGreaterThan(0);
    await agent.resource<Secret>(SECRETS).list('', { fieldSelector: 'type=kubernetes.io/tls' });
    await expect(agent.resource<Ingress>(INGRESSES).delete('default', 'ours')).rejects.toMatchObject({
      code: 403,
    });
  });

  it('admits an Ingress naming no class with the default class (DefaultIngressClass)', async () => {
    const ingresses = cp.admin.resource<Ingress>(INGRESSES);
    expect((await ingresses.get('default', 'ours')).spec?.ingressClassName).toBe('tkube');
    const legacy = await ingresses.create({
      metadata: {
        name: 'legacy',
        namespace: 'default',
        annotations: { 'kubernetes.io/ingress.class': 'other' },
      },
      spec: { defaultBackend: backend },
    });
    expect(legacy.spec?.ingressClassName).toBeUndefined();
    const named = await ingresses.create({
      metadata: { name: 'named', namespace: 'default' },
      spec: { ingressClassName: 'other', defaultBackend: backend },
    });
    expect(named.spec?.ingressClassName).toBe('other');
  });

  it('picks the newest of two default classes, and none when no class is default', async () => {
    const classes = cp.admin.resource<IngressClass>(INGRESS_CLASSES);
    const ingresses = cp.admin.resource<Ingress>(INGRESSES);
    // Created after `tkube` (or in the same second, where the first name wins: `a-newer`).
    await classes.create({
      metadata: { name: 'a-newer', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'example.com/other' },
    });
    const second = await ingresses.create({
      metadata: { name: 'second', namespace: 'default' },
      spec: { defaultBackend: backend },
    });
    expect(second.spec?.ingressClassName).toBe('a-newer');
    for (const name of ['a-newer', 'tkube']) {
      await classes.patch('', name, 'merge', {
        metadata: { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'false' } },
      });
    }
    const none = await ingresses.create({
      metadata: { name: 'none', namespace: 'default' },
      spec: { defaultBackend: backend },
    });
    expect(none.spec?.ingressClassName).toBeUndefined();
    // Only creations are defaulted.
    await classes.patch('', 'tkube', 'merge', {
      metadata: { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    });
    const updated = await ingresses.patch('default', 'none', 'merge', { metadata: { labels: { a: 'b' } } });
    expect(updated.spec?.ingressClassName).toBeUndefined();
  });
});
