// The endpoints and endpointslice controllers through the whole control plane, with the kubelet
// simulated by patching pods/status: addresses follow readiness, named ports resolve per pod,
// headless services, publishNotReadyAddresses, terminating pods, selector-less services, and the
// per-slice endpoint limit. Plus the subset repacking and the 1000-address cap on their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  EndpointAddress,
  Endpoints,
  Node,
  Pod,
  Service,
  ServiceAccount,
} from '../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../src/api/types/discovery-v1.generated.js';
import {
  ENDPOINT_SLICES,
  ENDPOINTS,
  NODES,
  PODS,
  SERVICE_ACCOUNTS,
  SERVICES,
} from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import { repackSubsets, truncateSubsets } from '../../../src/controllers/endpoint/subsets.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { markPodRunning, setPodReady } from '../../support/simulated-kubelet.js';

describe('endpoint subsets', () => {
  const address = (ip: string, uid: string): EndpointAddress => ({ ip, targetRef: { kind: 'Pod', uid } });

  it('merges ports offered by the same addresses and keeps port-less addresses', () => {
    const http = { name: 'http', port: 80, protocol: 'TCP' };
    const metrics = { name: 'metrics', port: 9090, protocol: 'TCP' };
    const packed = repackSubsets([
      { addresses: [address('10.0.0.2', 'b')], ports: [http] },
      { addresses: [address('10.0.0.1', 'a')], ports: [http] },
      { addresses: [address('10.0.0.1', 'a')], ports: [metrics] },
      { addresses: [address('10.0.0.2', 'b')], ports: [metrics] },
      { notReadyAddresses: [address('10.0.0.3', 'c')], ports: [http] },
    ]);
    expect(packed).toEqual([
      {
        addresses: [address('10.0.0.1', 'a'), address('10.0.0.2', 'b')],
        notReadyAddresses: [address('10.0.0.3', 'c')],
        ports: [http],
      },
      { addresses: [address('10.0.0.1', 'a'), address('10.0.0.2', 'b')], ports: [metrics] },
    ]);
    expect(repackSubsets([{ addresses: [address('10.0.0.9', 'z')], ports: [] }])).toEqual([
      { addresses: [address('10.0.0.9', 'z')] },
    ]);
  });

  it('caps the addresses at 1000, ready ones first', () => {
    const many = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => address(`${prefix}.${i >> 8}.${i & 255}`, `${prefix}-${i}`));
    const subsets = [
      { addresses: many('10.1', 600), notReadyAddresses: many('10.2', 300) },
      { addresses: many('10.3', 200), notReadyAddresses: many('10.4', 100) },
    ];
    expect(truncateSubsets(subsets)).toBe(true);
    expect(subsets[0]!.addresses).toHaveLength(600);
    expect(subsets[1]!.addresses).toHaveLength(200);
    expect(subsets[0]!.notReadyAddresses).toHaveLength(150);
    expect(subsets[1]!.notReadyAddresses).toHaveLength(50);
    expect(truncateSubsets([{ addresses: many('10.5', 1000) }])).toBe(false);
  });
});

describe('endpoints and endpointslice controllers', () => {
  let cp: InProcessControlPlane;
  const namespace = 'default';
  let nextIp = 10;

  beforeAll(async () => {
    // A small slice size (100 by default) keeps the slice-splitting case cheap.
    cp = await startInProcessControlPlane({ controllerSettings: { maxEndpointsPerSlice: 5 } });
    await eventually(() =>
      cp.admin
        .resource<ServiceAccount>(SERVICE_ACCOUNTS)
        .get(namespace, 'default')
        .catch(() => undefined),
    );
    await cp.admin.resource<Node>(NODES).create({
      metadata: { name: 'ep-node', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
    });
  }, 30_000);
  afterAll(() => cp?.stop());

  const pods = () => cp.admin.resource<Pod>(PODS);
  const services = () => cp.admin.resource<Service>(SERVICES);
  const endpointsOf = (name: string) =>
    cp.admin
      .resource<Endpoints>(ENDPOINTS)
      .get(namespace, name)
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
  const slicesOf = async (service: string) =>
    (
      await cp.admin
        .resource<EndpointSlice>(ENDPOINT_SLICES)
        .list(namespace, { labelSelector: `kubernetes.io/service-name=${service}` })
    ).items;

  /** A pod on ep-node that the "kubelet" has started: Running, with an IP, Ready or not. */
  async function runPod(
    name: string,
    labels: Record<string, string>,
    options: { ready: boolean; httpPort?: number; hostname?: string; subdomain?: string },
  ): Promise<Pod> {
    await pods().create({
      metadata: { name, namespace, labels },
      spec: {
        nodeName: 'ep-node',
        ...(options.hostname ? { hostname: options.hostname, subdomain: options.subdomain } : {}),
        containers: [
          {
            name: 'app',
            image: 'busybox',
            ports: [{ name: 'http', containerPort: options.httpPort ?? 8080, protocol: 'TCP' }],
          },
        ],
      },
    });
    const n = nextIp++;
    return markPodRunning(cp.admin, namespace, name, {
      ip: `10.244.${n >> 8}.${n & 255}`,
      ready: options.ready,
    });
  }

  const setReady = (name: string, ready: boolean) => setPodReady(cp.admin, namespace, name, ready);

  const ips = (addresses: EndpointAddress[] | undefined) => (addresses ?? []).map((a) => a.ip).sort();

  it('lists ready and not-ready pods, resolving a named port per pod', async () => {
    const a = await runPod('web-a', { app: 'web' }, { ready: true, httpPort: 8080 });
    const b = await runPod('web-b', { app: 'web' }, { ready: false, httpPort: 9090 });
    await services().create({
      metadata: { name: 'web', namespace, labels: { tier: 'front' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const endpoints = await eventually(async () => {
      const found = await endpointsOf('web');
      return found?.subsets?.length === 2 ? found : undefined;
    });
    const byPort = new Map(endpoints.subsets!.map((subset) => [subset.ports![0]!.port, subset]));
    expect(byPort.get(8080)).toEqual({
      addresses: [
        {
          ip: a.status!.podIP,
          nodeName: 'ep-node',
          targetRef: { kind: 'Pod', namespace, name: 'web-a', uid: a.metadata!.uid },
        },
      ],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
    expect(ips(byPort.get(9090)!.notReadyAddresses)).toEqual([b.status!.podIP]);
    expect(byPort.get(9090)!.addresses).toBeUndefined();
    expect(endpoints.metadata?.labels).toEqual({ tier: 'front' });
    expect(endpoints.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );

    const slices = await eventually(async () => {
      const found = await slicesOf('web');
      return found.length === 2 && found.every((s) => s.endpoints?.length === 1) ? found : undefined;
    });
    const slice8080 = slices.find((s) => s.ports?.[0]?.port === 8080)!;
    expect(slice8080.metadata?.generateName).toBe('web-');
    expect(slice8080.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slice8080.addressType).toBe('IPv4');
    expect(slice8080.metadata?.labels).toEqual({
      tier: 'front',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice8080.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'v1', kind: 'Service', name: 'web', controller: true }),
    ]);
    expect(slice8080.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(slice8080.endpoints[0]).toEqual({
      addresses: [a.status!.podIP],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'ep-node',
      zone: 'zone-a',
      targetRef: { kind: 'Pod', namespace, name: 'web-a', uid: a.metadata!.uid },
    });
    const slice9090 = slices.find((s) => s.ports?.[0]?.port === 9090)!;
    expect(slice9090.endpoints[0]!.conditions).toEqual({ ready: false, serving: false, terminating: false });
  });

  it('follows readiness and drops terminating pods from Endpoints but not from slices', async () => {
    await setReady('web-b', true);
    await eventually(async () => {
      const found = await endpointsOf('web');
      return found?.subsets?.every((s) => s.addresses?.length === 1 && !s.notReadyAddresses)
        ? found
        : undefined;
    });
    await setReady('web-a', false);
    await eventually(async () => {
      const subset = (await endpointsOf('web'))?.subsets?.find((s) => s.ports?.[0]?.port === 8080);
      return subset?.notReadyAddresses?.length === 1 && !subset.addresses ? subset : undefined;
    });
    // Bound pods are deleted gracefully: the pod stays, terminating, until its kubelet is done.
    await setReady('web-a', true);
    await pods().delete(namespace, 'web-b');
    const endpoints = await eventually(async () => {
      const found = await endpointsOf('web');
      return found?.subsets?.length === 1 && found.subsets[0]!.addresses?.length === 1 ? found : undefined;
    });
    expect(endpoints.subsets![0]!.ports![0]!.port).toBe(8080);
    const terminating = await eventually(async () => {
      const slice = (await slicesOf('web')).find((s) => s.ports?.[0]?.port === 9090);
      const endpoint = slice?.endpoints?.[0];
      return endpoint?.conditions?.terminating ? endpoint : undefined;
    });
    expect(terminating.conditions).toEqual({ ready: false, serving: true, terminating: true });
    await pods().delete(namespace, 'web-b', { gracePeriodSeconds: 0 });
    await eventually(async () => ((await slicesOf('web')).length === 1 ? true : undefined));
  });

  it('publishes not-ready pods of a headless service that asks for it', async () => {
    const pod = await runPod('db-0', { app: 'db' }, { ready: false, hostname: 'db-0', subdomain: 'db' });
    await services().create({
      metadata: { name: 'db', namespace },
      spec: {
        clusterIP: 'None',
        publishNotReadyAddresses: true,
        selector: { app: 'db' },
        ports: [{ name: 'sql', port: 5432 }],
      },
    });
    const endpoints = await eventually(async () => {
      const found = await endpointsOf('db');
      return found?.subsets?.length ? found : undefined;
    });
    expect(endpoints.metadata?.labels).toEqual({ 'service.kubernetes.io/headless': '' });
    expect(endpoints.subsets).toEqual([
      {
        addresses: [
          {
            ip: pod.status!.podIP,
            hostname: 'db-0',
            nodeName: 'ep-node',
            targetRef: { kind: 'Pod', namespace, name: 'db-0', uid: pod.metadata!.uid },
          },
        ],
        ports: [{ name: 'sql', port: 5432, protocol: 'TCP' }],
      },
    ]);
    const [slice] = await eventually(async () => {
      const found = await slicesOf('db');
      return found.length === 1 && found[0]!.endpoints?.length === 1 ? found : undefined;
    });
    expect(slice!.metadata?.labels?.['service.kubernetes.io/headless']).toBe('');
    expect(slice!.endpoints[0]).toMatchObject({
      hostname: 'db-0',
      conditions: { ready: true, serving: false, terminating: false },
    });
  });

  it('lists pods of a headless service without ports, and leaves selector-less services alone', async () => {
    const pod = await runPod('raw-0', { app: 'raw' }, { ready: true });
    await services().create({
      metadata: { name: 'raw', namespace },
      spec: { clusterIP: 'None', selector: { app: 'raw' } },
    });
    const endpoints = await eventually(async () => {
      const found = await endpointsOf('raw');
      return found?.subsets?.length ? found : undefined;
    });
    expect(endpoints.subsets).toEqual([{ addresses: [expect.objectContaining({ ip: pod.status!.podIP })] }]);

    await services().create({
      metadata: { name: 'external', namespace },
      spec: { ports: [{ port: 443 }] },
    });
    await cp.admin.resource<Endpoints>(ENDPOINTS).create({
      metadata: { name: 'external', namespace },
      subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 8443 }] }],
    });
    // Time for the controllers to (wrongly) act on the selector-less service.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const kept = await endpointsOf('external');
    expect(kept?.subsets).toEqual([
      { addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 8443, protocol: 'TCP' }] },
    ]);
    // The endpointslice controller makes no slice of it; the mirroring controller mirrors the
    // hand-written Endpoints instead.
    const slices = await eventually(async () => {
      const found = await slicesOf('external');
      return found.length > 0 ? found : undefined;
    });
    expect(slices.map((slice) => slice.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'])).toEqual(
      ['endpointslicemirroring-controller.k8s.io'],
    );
    expect(slices[0]?.endpoints).toEqual([{ addresses: ['192.0.2.10'], conditions: { ready: true } }]);
  });

  it('keeps one empty slice for a service without endpoints and deletes Endpoints with the service', async () => {
    await services().create({
      metadata: { name: 'empty', namespace },
      spec: { selector: { app: 'nothing' }, ports: [{ port: 80 }] },
    });
    const [placeholder] = await eventually(async () => {
      const found = await slicesOf('empty');
      return found.length === 1 ? found : undefined;
    });
    expect(placeholder!.endpoints ?? []).toEqual([]);
    expect(placeholder!.ports ?? []).toEqual([]);
    expect(await eventually(() => endpointsOf('empty'))).toMatchObject({ metadata: { name: 'empty' } });
    await services().delete(namespace, 'empty');
    await eventually(async () => ((await endpointsOf('empty')) === undefined ? true : undefined));
  });

  it('gives ready endpoints the hints the service trafficDistribution asks for, and follows changes', async () => {
    await runPod('near-a', { app: 'near' }, { ready: true });
    await runPod('near-b', { app: 'near' }, { ready: false });
    await services().create({
      metadata: { name: 'near', namespace },
      spec: {
        selector: { app: 'near' },
        ports: [{ port: 80, targetPort: 8080 }],
        trafficDistribution: 'PreferSameNode',
      },
    });
    const hintsBy = async (wanted: (hints: Record<string, string>) => boolean) =>
      eventually(async () => {
        const endpoints = (await slicesOf('near')).flatMap((s) => s.endpoints ?? []);
        if (endpoints.length !== 2) return undefined;
        const hints = Object.fromEntries(
          endpoints.map((e) => [e.targetRef?.name ?? '', e.hints ? JSON.stringify(e.hints) : 'none']),
        );
        return wanted(hints) ? hints : undefined;
      });
    const sameNode = await hintsBy((h) => h['near-a'] !== 'none');
    expect(sameNode).toEqual({
      'near-a': JSON.stringify({ forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'ep-node' }] }),
      'near-b': 'none',
    });
    const setDistribution = async (value: string | undefined) => {
      const current = await services().get(namespace, 'near');
      const { trafficDistribution: _old, ...spec } = current.spec ?? {};
      await services().update({ ...current, spec: value ? { ...spec, trafficDistribution: value } : spec });
    };
    // The slice's endpoints did not change: only the hints make it stale.
    await setDistribution('PreferClose');
    expect(await hintsBy((h) => !h['near-a']!.includes('forNodes'))).toEqual({
      'near-a': JSON.stringify({ forZones: [{ name: 'zone-a' }] }),
      'near-b': 'none',
    });
    await setDistribution(undefined);
    expect(await hintsBy((h) => h['near-a'] === 'none')).toEqual({ 'near-a': 'none', 'near-b': 'none' });
  });

  it('refuses a trafficDistribution it does not know, listing the supported ones', async () => {
    const refused = await services()
      .create({
        metadata: { name: 'far', namespace },
        spec: { selector: { app: 'far' }, ports: [{ port: 80 }], trafficDistribution: 'PreferFar' },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(String(refused)).toContain(
      'spec.trafficDistribution: Unsupported value: "PreferFar": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"',
    );
  });

  it('puts at most --max-endpoints-per-slice endpoints in a slice', async () => {
    await services().create({
      metadata: { name: 'many', namespace },
      spec: { selector: { app: 'many' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    for (let i = 0; i < 7; i++) await runPod(`many-${i}`, { app: 'many' }, { ready: true });
    const slices = await eventually(async () => {
      const found = await slicesOf('many');
      const total = found.reduce((sum, s) => sum + (s.endpoints?.length ?? 0), 0);
      return total === 7 ? found : undefined;
    });
    expect(slices.map((s) => s.endpoints.length).sort((x, y) => x - y)).toEqual([2, 5]);
    const endpoints = await eventually(async () => {
      const found = await endpointsOf('many');
      return found?.subsets?.[0]?.addresses?.length === 7 ? found : undefined;
    });
    expect(endpoints.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity']).toBeUndefined();
  });
});
