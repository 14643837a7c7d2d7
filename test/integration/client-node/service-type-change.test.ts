// @kubernetes/client-node changes of a Service's type: ClusterIPs and node ports are
// allocated and released as kube-apiserver's service REST storage does, so the read-modify-write
// updates real clients (and the conformance suite) make succeed.
import { ApiException, CoreV1Api, type V1Service, type V1Status } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

const namespace = 'default';

/** Reads the Service, changes it as `edit` says and writes it back (the e2e jig's UpdateService). */
async function update(name: string, edit: (service: V1Service) => void): Promise<V1Service> {
  const service = await core.readNamespacedService({ namespace, name });
  edit(service);
  return core.replaceNamespacedService({ namespace, name, body: service });
}

async function failure(call: Promise<unknown>): Promise<V1Status> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return JSON.parse(error.body as string) as V1Status;
    throw error;
  }
  throw new Error('the call succeeded');
}

const inServiceNetwork = /^10\.96\.\d+\.\d+$/;

describe('Service type changes', () => {
  it('releases the ClusterIP going to ExternalName and allocates one coming back', async () => {
    const created = await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'flip' }, spec: { ports: [{ port: 80 }], selector: { app: 'flip' } } },
    });
    expect(created.spec?.clusterIP).toMatch(inServiceNetwork);

    const external = await update('flip', (service) => {
      service.spec!.type = 'ExternalName';
      service.spec!.externalName = 'example.com';
    });
    expect(external.spec?.type).toBe('ExternalName');
    expect(external.spec?.clusterIP).toBeUndefined();
    expect(external.spec?.clusterIPs).toBeUndefined();
    expect(external.spec?.ipFamilies).toBeUndefined();
    expect(external.spec?.ipFamilyPolicy).toBeUndefined();

    const back = await update('flip', (service) => {
      service.spec!.type = 'ClusterIP';
      service.spec!.externalName = undefined;
      service.spec!.ports = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 9376 }];
    });
    expect(back.spec?.clusterIP).toMatch(inServiceNetwork);
    expect(back.spec?.clusterIPs).toEqual([back.spec?.clusterIP]);
    expect(back.spec?.ipFamilies).toEqual(['IPv4']);
    expect(back.spec?.ipFamilyPolicy).toBe('SingleStack');
    // The IP is allocated: another Service may not ask for it.
    const taken = await failure(
      core.createNamespacedService({
        namespace,
        body: {
          metadata: { name: 'thief' },
          spec: { clusterIP: back.spec?.clusterIP, ports: [{ port: 80 }] },
        },
      }),
    );
    expect(taken.code).toBe(422);
    expect(taken.message).toBe(
      `Service "thief" is invalid: spec.clusterIPs: Invalid value: []string{"${back.spec?.clusterIP}"}: failed to allocate IP ${back.spec?.clusterIP}: provided IP is already allocated`,
    );
  });

  it('allocates a ClusterIP and node ports going from ExternalName to NodePort', async () => {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'example.com' } },
    });
    const nodePort = await update('external', (service) => {
      service.spec!.type = 'NodePort';
      service.spec!.externalName = undefined;
      service.spec!.ports = [{ name: 'http', port: 80 }];
    });
    expect(nodePort.spec?.clusterIP).toMatch(inServiceNetwork);
    expect(nodePort.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort.spec?.ports?.[0]?.nodePort).toBeLessThanOrEqual(32767);
    expect(nodePort.spec?.externalTrafficPolicy).toBe('Cluster');
  });

  it('keeps node ports across NodePort and LoadBalancer and drops them going back to ClusterIP', async () => {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'ports' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    });
    const nodePort = await update('ports', (service) => {
      service.spec!.type = 'NodePort';
    });
    const allocated = nodePort.spec?.ports?.[0]?.nodePort;
    expect(allocated).toBeGreaterThanOrEqual(30000);

    const balancer = await update('ports', (service) => {
      service.spec!.type = 'LoadBalancer';
    });
    expect(balancer.spec?.ports?.[0]?.nodePort).toBe(allocated);
    expect(balancer.spec?.allocateLoadBalancerNodePorts).toBe(true);

    // A PUT that leaves the node port out keeps it (matched by port name).
    const omitted = await update('ports', (service) => {
      service.spec!.ports = [{ name: 'http', port: 80 }];
      service.spec!.externalTrafficPolicy = 'Local';
    });
    expect(omitted.spec?.ports?.[0]?.nodePort).toBe(allocated);
    expect(omitted.spec?.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(omitted.spec?.healthCheckNodePort).not.toBe(allocated);

    const status = await core.replaceNamespacedServiceStatus({
      namespace,
      name: 'ports',
      body: { ...omitted, status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
    });
    expect(status.status?.loadBalancer?.ingress?.[0]?.ip).toBe('192.0.2.10');

    const clusterIp = await update('ports', (service) => {
      service.spec!.type = 'ClusterIP';
    });
    expect(clusterIp.spec?.ports?.[0]?.nodePort).toBeUndefined();
    expect(clusterIp.spec?.healthCheckNodePort).toBeUndefined();
    expect(clusterIp.spec?.externalTrafficPolicy).toBeUndefined();
    expect(clusterIp.spec?.allocateLoadBalancerNodePorts).toBeUndefined();
    expect(clusterIp.status?.loadBalancer).toEqual({});

    // The released port can be asked for by another Service.
    const reuse = await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'reuse' },
        spec: { type: 'NodePort', ports: [{ port: 80, nodePort: allocated }] },
      },
    });
    expect(reuse.spec?.ports?.[0]?.nodePort).toBe(allocated);

    // ... and is then refused to the first one.
    const refused = await failure(
      update('ports', (service) => {
        service.spec!.type = 'NodePort';
        service.spec!.ports = [{ name: 'http', port: 80, nodePort: allocated }];
      }),
    );
    expect(refused.code).toBe(422);
    expect(refused.message).toBe(
      `Service "ports" is invalid: spec.ports[0].nodePort: Invalid value: ${allocated}: provided port is already allocated`,
    );
  });

  it('gives a new LoadBalancer with the Local policy a health check node port', async () => {
    const created = await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'local' },
        spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 443 }] },
      },
    });
    expect(created.spec?.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(created.spec?.healthCheckNodePort).not.toBe(created.spec?.ports?.[0]?.nodePort);
  });
});
