// The service controller with tkube's address pool, through the whole control plane: addresses
// assigned with the cleanup finalizer and upstream's events, spec.loadBalancerIP honoured,
// foreign classes left alone, addresses released on type change and on delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Service } from '../../../src/api/types/core-v1.generated.js';
import { EVENTS, SERVICES } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

const FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

describe('service controller (LoadBalancer addresses)', () => {
  let cp: InProcessControlPlane;

  beforeAll(async () => {
    cp = await startInProcessControlPlane({
      controllerSettings: { loadBalancerIpRange: '172.30.9.224-172.30.9.226' },
    });
  }, 30_000);
  afterAll(() => cp?.stop());

  const services = () => cp.admin.resource<Service>(SERVICES);
  const create = (name: string, spec: Service['spec'] = {}) =>
    services().create({
      metadata: { name, namespace: 'default' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: name }, ...spec },
    });
  const ingressOf = async (name: string) =>
    (await services().get('default', name)).status?.loadBalancer?.ingress;
  const assigned = (name: string) =>
    eventually(async () => {
      const ingress = await ingressOf(name);
      return ingress?.[0]?.ip ? ingress : undefined;
    }, 5_000);
  const reasons = async (name: string) =>
    (await cp.admin.resource<Event>(EVENTS).list('default')).items
      .filter((event) => event.involvedObject?.name === name)
      .map((event) => `${event.reason}: ${event.message}`);

  it('assigns an address within a second, with the cleanup finalizer and events', async () => {
    const started = Date.now();
    await create('web');
    const ingress = await assigned('web');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(ingress).toEqual([{ ip: '172.30.9.224', ipMode: 'VIP' }]);
    expect((await services().get('default', 'web')).metadata?.finalizers).toEqual([FINALIZER]);
    await eventually(async () => {
      const seen = await reasons('web');
      return seen.includes('EnsuredLoadBalancer: Ensured load balancer') ? seen : undefined;
    });
    expect(await reasons('web')).toContain('EnsuringLoadBalancer: Ensuring load balancer');
  });

  it('honours spec.loadBalancerIP when free and in range, and warns when it is not', async () => {
    await create('pinned', { loadBalancerIP: '172.30.9.226' });
    expect(await assigned('pinned')).toEqual([{ ip: '172.30.9.226', ipMode: 'VIP' }]);
    await create('outside', { loadBalancerIP: '10.9.9.9' });
    const warning = await eventually(async () =>
      (await reasons('outside')).find((reason) => reason.startsWith('SyncLoadBalancerFailed')),
    );
    expect(warning).toBe(
      'SyncLoadBalancerFailed: Error syncing load balancer: failed to ensure load balancer: requested IP 10.9.9.9 is not in the load balancer address range 172.30.9.224-172.30.9.226',
    );
    expect(await ingressOf('outside')).toBeUndefined();
    // Asking for a free address in range moves the service there.
    const outside = await services().get('default', 'outside');
    await services().update({ ...outside, spec: { ...outside.spec, loadBalancerIP: '172.30.9.225' } });
    expect(await assigned('outside')).toEqual([{ ip: '172.30.9.225', ipMode: 'VIP' }]);
    expect(await reasons('outside')).toContain('LoadbalancerIP: 10.9.9.9 -> 172.30.9.225');
    await services().delete('default', 'outside');
  });

  it('leaves a service of another loadBalancerClass alone', async () => {
    await create('foreign', { loadBalancerClass: 'example.com/other' });
    await create('third');
    // 'third' takes the last free address; the foreign one got none and no finalizer.
    expect(await assigned('third')).toEqual([{ ip: '172.30.9.225', ipMode: 'VIP' }]);
    const foreign = await services().get('default', 'foreign');
    expect(foreign.status?.loadBalancer?.ingress).toBeUndefined();
    expect(foreign.metadata?.finalizers).toBeUndefined();
    expect(await reasons('foreign')).toEqual([]);
  });

  it('releases the address when the type changes, and another service gets it', async () => {
    const web = await services().get('default', 'web');
    await services().update({ ...web, spec: { ...web.spec, type: 'ClusterIP' } });
    await eventually(async () => {
      const now = await services().get('default', 'web');
      return now.metadata?.finalizers === undefined && now.status?.loadBalancer?.ingress === undefined
        ? now
        : undefined;
    });
    await eventually(async () =>
      (await reasons('web')).includes('DeletedLoadBalancer: Deleted load balancer') ? true : undefined,
    );
    expect(await reasons('web')).toContain('Type: LoadBalancer -> ClusterIP');
    await create('fourth');
    expect(await assigned('fourth')).toEqual([{ ip: '172.30.9.224', ipMode: 'VIP' }]);
  });

  it('releases the address on delete, the finalizer holding the service until then', async () => {
    await services().delete('default', 'fourth');
    await eventually(async () => {
      try {
        await services().get('default', 'fourth');
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    });
    await create('fifth');
    expect(await assigned('fifth')).toEqual([{ ip: '172.30.9.224', ipMode: 'VIP' }]);
  });
});
