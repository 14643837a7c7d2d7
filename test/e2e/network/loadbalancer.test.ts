// LoadBalancer services on `tkube up --nodes 2` with real Docker nodes (MetalLB's layer-2 way):
// an address of the cluster network assigned within a second, held by exactly one node and
// reached from the host; `allocateLoadBalancerNodePorts: false` reached without node ports; a
// foreign loadBalancerClass left without an address; the address moving to the other node when
// its holder is `docker stop`ped or killed, and released (off the interface, free again) on delete;
// with TKUBE_LOAD_BALANCER_HOST_PORTS=always (Docker Desktop's case), also reached on a host port.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/api/types/coordination-v1.generated.js';
import type { Event, Pod, Service } from '../../../src/api/types/core-v1.generated.js';
import { EVENTS, LEASES, SERVICES } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import { waitFor } from '../kubelet/pods-support.js';
import { backendContainer, type NetworkCluster, startNetworkCluster, waitForRules } from './support.js';

let cluster: NetworkCluster;
let nodes: string[];

const services = () => cluster.client.resource<Service>(SERVICES);

function loadBalancer(name: string, spec: Service['spec'] = {}): Service {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      type: 'LoadBalancer',
      selector: { app: 'web' },
      ports: [{ port: 80, targetPort: 'http' }],
      ...spec,
    },
  };
}

async function assignedIP(name: string): Promise<string> {
  const svc = await waitFor(
    () => services().get('default', name),
    (s) => Boolean(s.status?.loadBalancer?.ingress?.[0]?.ip),
    10_000,
    `an address for ${name}`,
  );
  return svc.status!.loadBalancer!.ingress![0]!.ip!;
}

/** The nodes whose interface holds `ip` (as a /32). */
async function holdersOf(ip: string, among: readonly string[] = nodes): Promise<string[]> {
  const held: string[] = [];
  for (const node of among) {
    const result = await execa('docker', ['exec', node, 'ip', '-4', '-o', 'addr', 'show'], { reject: false });
    if (result.exitCode === 0 && result.stdout.includes(` inet ${ip}/32 `)) held.push(node);
  }
  return held;
}

/** A GET from the host, undefined on failure. */
async function hostGet(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? (await response.text()).trim() : undefined;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  // Host ports forced on (they are for hosts that cannot reach the network, as on Docker Desktop).
  cluster = await startNetworkCluster('lb', 2, 'lb', { TKUBE_LOAD_BALANCER_HOST_PORTS: 'always' });
  nodes = [...cluster.nodeIPs.keys()].sort();
  // One backend on each node, so whichever node is stopped, a live one remains.
  await Promise.all(
    nodes.map((node, i) =>
      cluster.pods.create({
        metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' } },
        spec: { nodeName: node, containers: [backendContainer()] },
      }),
    ),
  );
  for (let i = 0; i < nodes.length; i++) {
    await waitFor(
      () => cluster.pods.get('default', `web-${i}`),
      (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      120_000,
      `backend web-${i} ready`,
    );
  }
}, 400_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

describe('LoadBalancer services', () => {
  let webIP: string;

  it('gets an address of the cluster network within a second, held by one node and reached from the host', async () => {
    const started = Date.now();
    await services().create(loadBalancer('web'));
    webIP = await assignedIP('web');
    expect(Date.now() - started).toBeLessThan(1_500);
    const subnetPrefix = cluster.nodeIPs.get(nodes[0]!)!.split('.').slice(0, 3).join('.');
    expect(webIP).toBe(`${subnetPrefix}.224`);
    const svc = await services().get('default', 'web');
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: webIP, ipMode: 'VIP' }]);
    expect(svc.metadata?.finalizers).toEqual(['service.kubernetes.io/load-balancer-cleanup']);

    await waitFor(
      () => holdersOf(webIP),
      (held) => held.length === 1,
      15_000,
      `a node holding ${webIP}`,
    );
    await waitForRules(cluster, new RegExp(`-d ${webIP.replaceAll('.', '\\.')}/32 .*loadbalancer IP`));
    const answers = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const answer = await hostGet(`http://${webIP}/`);
      expect(answer).toMatch(/^web-\d$/);
      answers.add(answer!);
    }
    expect(answers.size).toBe(2);
    expect(await holdersOf(webIP)).toHaveLength(1);

    const { stdout } = await cluster.kubectl(['get', 'svc', 'web', '-o', 'wide']);
    expect(stdout).toContain(webIP);
    const reasons = (await cluster.client.resource<Event>(EVENTS).list('default')).items
      .filter((event) => event.involvedObject?.name === 'web' && event.involvedObject.kind === 'Service')
      .map((event) => event.reason);
    expect(reasons).toEqual(expect.arrayContaining(['EnsuringLoadBalancer', 'EnsuredLoadBalancer']));
    // The holding node's agent says it announces the address.
    const [holder] = await holdersOf(webIP);
    const described = await cluster.kubectl(['describe', 'svc', 'web']);
    expect(described.stdout).toContain(`announcing from node "${holder}" with protocol "layer2"`);
  }, 60_000);

  it('publishes the address on a host port, forwarded through a node tunnel, and says where', async () => {
    const event = await waitFor(
      async () =>
        (await cluster.client.resource<Event>(EVENTS).list('default')).items.find(
          (e) => e.involvedObject?.name === 'web' && e.reason === 'PublishedOnHostPort',
        ),
      (found) => found !== undefined,
      15_000,
      'the PublishedOnHostPort event of web',
    );
    const published = new RegExp(
      `^${webIP.replaceAll('.', '\\.')}:80/TCP is published on the host at 127\\.0\\.0\\.1:(\\d+)$`,
    );
    const hostPort = published.exec(event!.message ?? '')?.[1];
    expect(hostPort, event!.message).toBeDefined();
    const answers = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const answer = await hostGet(`http://127.0.0.1:${hostPort}/`);
      expect(answer).toMatch(/^web-\d$/);
      answers.add(answer!);
    }
    // Each connection is balanced inside the network as any other to the address.
    expect(answers.size).toBe(2);
  }, 30_000);

  it('serves allocateLoadBalancerNodePorts: false without any node port', async () => {
    await services().create(loadBalancer('no-node-ports', { allocateLoadBalancerNodePorts: false }));
    const ip = await assignedIP('no-node-ports');
    expect((await services().get('default', 'no-node-ports')).spec?.ports?.[0]?.nodePort).toBeUndefined();
    const answer = await waitFor(
      () => hostGet(`http://${ip}/`),
      (a) => a !== undefined,
      20_000,
      `an answer at ${ip}`,
    );
    expect(answer).toMatch(/^web-\d$/);
  }, 60_000);

  it('leaves a service of another loadBalancerClass without an address', async () => {
    await services().create(loadBalancer('foreign', { loadBalancerClass: 'example.com/other-lb' }));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const svc = await services().get('default', 'foreign');
    expect(svc.status?.loadBalancer?.ingress).toBeUndefined();
    expect(svc.metadata?.finalizers).toBeUndefined();
    const { stdout } = await cluster.kubectl(['get', 'svc', 'foreign', '--no-headers']);
    expect(stdout).toContain('<pending>');
  }, 30_000);

  it('moves the address to the other node when its holder is stopped', async () => {
    const [holder] = await holdersOf(webIP);
    const survivor = nodes.find((node) => node !== holder)!;
    await execa('docker', ['stop', '--time', '2', holder!]);
    const stopped = Date.now();
    await waitFor(
      () => holdersOf(webIP, [survivor]),
      (held) => held.join() === survivor,
      20_000,
      `${survivor} holding ${webIP}`,
    );
    expect(Date.now() - stopped).toBeLessThan(15_000);
    // The stopped node's backend stays listed until its node is found gone: some tries fail.
    const answer = await waitFor(
      () => hostGet(`http://${webIP}/`),
      (a) => a !== undefined,
      20_000,
      `an answer at ${webIP} from ${survivor}`,
    );
    expect(answer).toMatch(/^web-\d$/);

    // The stopped node comes back and campaigns again; the holder then dies without a word
    // (`docker kill`): its lease runs out and the other node takes the address over.
    const restarted = Date.now();
    await execa('docker', ['start', holder!]);
    // The returned agent renews its node's Lease first thing.
    await waitFor(
      () => cluster.client.resource<Lease>(LEASES).get('kube-node-lease', holder!),
      (lease) => Date.parse(lease.spec?.renewTime ?? '') >= restarted - 1_000,
      90_000,
      `the agent of ${holder} back`,
    );
    // Long enough for the returned agent's informers to sync and its campaign to start.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await holdersOf(webIP)).toEqual([survivor]);
    await execa('docker', ['kill', survivor]);
    const killed = Date.now();
    await waitFor(
      () => holdersOf(webIP, [holder!]),
      (held) => held.join() === holder,
      30_000,
      `${holder} taking ${webIP} over`,
    );
    const tookOverMs = Date.now() - killed;
    expect(tookOverMs).toBeLessThan(15_000);
    console.log(`load balancer address taken over ${tookOverMs} ms after its holder was killed`);
    // The returned node's backend runs again (its kubelet restarted it): the address answers.
    expect(
      await waitFor(
        () => hostGet(`http://${webIP}/`),
        (a) => a !== undefined,
        60_000,
        `an answer at ${webIP}`,
      ),
    ).toMatch(/^web-\d$/);
    nodes = [holder!];
  }, 210_000);

  it('releases the address on delete: off the interface, and free for the next service', async () => {
    await services().delete('default', 'web');
    await waitFor(
      async () => {
        try {
          await services().get('default', 'web');
          return false;
        } catch (error) {
          return isNotFound(error);
        }
      },
      (gone) => gone,
      10_000,
      'service web gone',
    );
    await waitFor(
      () => holdersOf(webIP),
      (held) => held.length === 0,
      15_000,
      `${webIP} released`,
    );
    await services().create(loadBalancer('next'));
    expect(await assignedIP('next')).toBe(webIP);
  }, 60_000);
});
