// The load balancer speakers of two nodes against a real control plane, under the agents'
// pod-network identity: exactly one holds each address the service controller assigns, the other
// takes it over when the holder stops, `externalTrafficPolicy: Local` keeps it on a node with a
// local endpoint, and a deleted service's address and lease go away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadBalancerSpeaker, speakerLeaseName } from '../../../../src/agent/loadbalancer/index.js';
import type { Lease } from '../../../../src/api/types/coordination-v1.generated.js';
import type { Event, Node, Service } from '../../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../../src/api/types/discovery-v1.generated.js';
import { EventBroadcaster } from '../../../../src/client/events/index.js';
import { SharedInformerFactory } from '../../../../src/client/informers/index.js';
import { ENDPOINT_SLICES, EVENTS, LEASES, NODES, SERVICES } from '../../../../src/client/resources.js';
import { isNotFound } from '../../../../src/client/rest/index.js';
import { POD_NETWORK_USER } from '../../../../src/controlplane/tkube-policy.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../../support/control-plane.js';

interface RunningSpeaker {
  readonly speaker: LoadBalancerSpeaker;
  readonly stop: () => Promise<void>;
  /** Every add and remove, in order. */
  readonly log: string[];
}

describe('load balancer speaker', () => {
  let cp: InProcessControlPlane;
  const speakers = new Map<string, RunningSpeaker>();

  function startSpeaker(nodeName: string): RunningSpeaker {
    const client = cp.controlPlane.loopbackClient(
      { name: POD_NETWORK_USER, groups: ['system:authenticated'] },
      'tkube-network',
    );
    const informers = new SharedInformerFactory(client);
    const log: string[] = [];
    const events = new EventBroadcaster(client);
    const speaker = new LoadBalancerSpeaker({
      client,
      recorder: events.newRecorder({ component: 'tkube-lb-speaker', host: nodeName }),
      services: informers.informerFor<Service>(SERVICES),
      slices: informers.informerFor<EndpointSlice>(ENDPOINT_SLICES),
      nodes: informers.informerFor<Node>(NODES),
      nodeName,
      addresses: {
        announceable: (ip) => ip.startsWith('172.30.9.'),
        add: async (ip) => void log.push(`add ${ip}`),
        remove: async (ip) => void log.push(`remove ${ip}`),
      },
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 250,
    });
    const abort = new AbortController();
    informers.start(abort.signal);
    const running = speaker.run(abort.signal);
    const entry = {
      speaker,
      log,
      stop: async () => {
        abort.abort();
        await running;
        await events.shutdown();
        await informers.stop();
      },
    };
    speakers.set(nodeName, entry);
    return entry;
  }

  beforeAll(async () => {
    cp = await startInProcessControlPlane({
      controllerSettings: { loadBalancerIpRange: '172.30.9.224-172.30.9.230' },
    });
  }, 30_000);
  afterAll(async () => {
    await Promise.all([...speakers.values()].map((entry) => entry.stop()));
    await cp?.stop();
  });

  const services = () => cp.admin.resource<Service>(SERVICES);
  const holders = (ip: string) =>
    [...speakers.entries()].filter(([, entry]) => entry.speaker.held().includes(ip)).map(([name]) => name);

  it('puts each address on exactly one node, and moves it when that node stops', async () => {
    const a = startSpeaker('node-a');
    const b = startSpeaker('node-b');
    await services().create({
      metadata: { name: 'web', namespace: 'default' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'web' } },
    });
    const first = await eventually(async () => {
      const held = holders('172.30.9.224');
      return held.length === 1 ? held[0] : undefined;
    }, 15_000);
    // The other node keeps campaigning without ever adding it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(holders('172.30.9.224')).toEqual([first]);
    const lease = await cp.admin
      .resource<Lease>(LEASES)
      .get('kube-system', speakerLeaseName('default', 'web'));
    expect(lease.spec?.holderIdentity).toBe(first);

    // Said on the service, as MetalLB's speaker says it, under the agents' own identity.
    const assigned = await eventually(async () =>
      (await cp.admin.resource<Event>(EVENTS).list('default')).items.find(
        (event) => event.involvedObject?.name === 'web' && event.reason === 'nodeAssigned',
      ),
    );
    expect(assigned.message).toBe(`announcing from node "${first}" with protocol "layer2"`);
    expect(assigned.source).toEqual({ component: 'tkube-lb-speaker', host: first });

    const [holder, other] = first === 'node-a' ? [a, 'node-b'] : [b, 'node-a'];
    await holder.stop();
    speakers.delete(first!);
    expect(holder.log).toEqual(['add 172.30.9.224', 'remove 172.30.9.224']);
    await eventually(async () => (holders('172.30.9.224')[0] === other ? true : undefined), 15_000);
    startSpeaker(first!);
  }, 45_000);

  it('announces an externalTrafficPolicy: Local service only from a node with a ready local endpoint', async () => {
    await services().create({
      metadata: { name: 'local', namespace: 'default' },
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        ports: [{ port: 80 }],
        selector: { app: 'local' },
      },
    });
    const ip = await eventually(
      async () => (await services().get('default', 'local')).status?.loadBalancer?.ingress?.[0]?.ip,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(holders(ip)).toEqual([]);
    await cp.admin.resource<EndpointSlice>(ENDPOINT_SLICES).create({
      metadata: {
        name: 'local-manual',
        namespace: 'default',
        labels: { 'kubernetes.io/service-name': 'local', 'endpointslice.kubernetes.io/managed-by': 'test' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.1.5'], nodeName: 'node-b', conditions: { ready: true } }],
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    await eventually(async () => (holders(ip).join() === 'node-b' ? true : undefined), 15_000);
  }, 45_000);

  it('never announces from a node labelled exclude-from-external-load-balancers', async () => {
    // node-b holds the Local service's address (previous test); excluding it takes it off.
    await cp.admin.resource<Node>(NODES).create({
      metadata: { name: 'node-b', labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } },
    });
    const ip = (await services().get('default', 'local')).status!.loadBalancer!.ingress![0]!.ip!;
    await eventually(async () => (holders(ip).length === 0 ? true : undefined), 15_000);
    await cp.admin.resource<Node>(NODES).delete('', 'node-b');
    await eventually(async () => (holders(ip).join() === 'node-b' ? true : undefined), 15_000);
  }, 45_000);

  // Bounds are generous: a loaded CI machine once took over 5 s to see the address taken off.
  it('takes a deleted service’s address off and deletes its lease', async () => {
    await services().delete('default', 'web');
    await eventually(async () => (holders('172.30.9.224').length === 0 ? true : undefined), 15_000);
    await eventually(async () => {
      try {
        await cp.admin.resource<Lease>(LEASES).get('kube-system', speakerLeaseName('default', 'web'));
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    }, 15_000);
  }, 45_000);
});
