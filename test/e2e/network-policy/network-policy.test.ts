// NetworkPolicy enforcement on `tkube up --nodes 2` with real Docker nodes: a truth table in the
// manner of Kubernetes' own network policy tests (cyclonus): 3 namespaces × 3 pods spread over both
// nodes, each serving TCP 80 and 81; for each policy set, every pod connects to every pod on both
// ports and the whole reachability matrix must be the expected one. A service's traffic is judged
// by its backend pod (after the proxy's DNAT). Cluster DNS answers a pod
// only where its egress rules allow port 53; a label change that lets a client in takes effect
// within a second.
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace, Pod, Service } from '../../../src/api/types/core-v1.generated.js';
import type { NetworkPolicy, NetworkPolicySpec } from '../../../src/api/types/networking-v1.generated.js';
import { findBuiltinResource, NAMESPACES, SERVICES } from '../../../src/client/resources.js';
import { BUSYBOX, isReady, waitFor } from '../kubelet/pods-support.js';
import { type NetworkCluster, startNetworkCluster, waitForRules } from '../network/support.js';

const NAMESPACE_NAMES = ['x', 'y', 'z'] as const;
const POD_NAMES = ['a', 'b', 'c'] as const;
const PORTS = [80, 81] as const;

interface Peer {
  readonly ns: string;
  readonly pod: string;
  readonly node: string;
  ip: string;
}

let cluster: NetworkCluster;
let peers: Peer[];
const policies = () =>
  cluster.client.resource<NetworkPolicy>(findBuiltinResource('networking.k8s.io', 'v1', 'networkpolicies')!);

const probeCommand = (ip: string, port: number, seconds = 2) =>
  `busybox timeout ${seconds} busybox wget -q -O /dev/null http://${ip}:${port}/`;

/** Every pod connects to every pod on both ports; `from -> to:port` for each connection made. */
async function reachability(): Promise<Set<string>> {
  const reached = new Set<string>();
  await Promise.all(
    peers.map(async (from) => {
      const script = [
        ...peers.flatMap((to) =>
          PORTS.map(
            (port) => `(${probeCommand(to.ip, port)} 2>/dev/null && echo "${to.ns}/${to.pod}:${port}") &`,
          ),
        ),
        'wait',
      ].join('\n');
      const result = await cluster.kubectl(['exec', '-n', from.ns, from.pod, '--', 'sh', '-c', script]);
      if (result.exitCode !== 0) throw new Error(`probe from ${from.ns}/${from.pod}: ${result.stderr}`);
      for (const line of result.stdout.split('\n').filter(Boolean))
        reached.add(`${from.ns}/${from.pod} -> ${line}`);
    }),
  );
  return reached;
}

type Expect = (from: Peer, to: Peer, port: number) => boolean;

/** The matrix as lines, one per source pod ("x/a  x/a:80=1 ..."), so a failure shows the difference. */
function table(allowed: (from: Peer, to: Peer, port: number) => boolean): string[] {
  return peers.map(
    (from) =>
      `${from.ns}/${from.pod} ` +
      peers
        .flatMap((to) => PORTS.map((port) => `${to.ns}/${to.pod}:${port}=${allowed(from, to, port) ? 1 : 0}`))
        .join(' '),
  );
}

const self = (from: Peer, to: Peer) => from.ns === to.ns && from.pod === to.pod;

async function applyPolicies(specs: { ns: string; name: string; spec: NetworkPolicySpec }[]): Promise<void> {
  for (const { ns, name, spec } of specs) {
    await policies().create({ metadata: { name, namespace: ns }, spec });
  }
}

async function deleteAllPolicies(): Promise<void> {
  for (const ns of NAMESPACE_NAMES) {
    for (const existing of (await policies().list(ns)).items)
      await policies().delete(ns, existing.metadata!.name!);
  }
}

/** Applies the policies, then checks the whole matrix (probing again while rules may still be syncing). */
async function expectMatrix(
  specs: { ns: string; name: string; spec: NetworkPolicySpec }[],
  expected: Expect,
): Promise<void> {
  await deleteAllPolicies();
  await applyPolicies(specs);
  const want = table(expected);
  let got: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const reached = await reachability();
    // The pod's own address never leaves its network namespace: always reachable.
    got = table((from, to, port) => reached.has(`${from.ns}/${from.pod} -> ${to.ns}/${to.pod}:${port}`));
    if (got.join('\n') === want.join('\n')) break;
  }
  expect(got).toEqual(want);
}

beforeAll(async () => {
  cluster = await startNetworkCluster('netpol', 2, 'np');
  const nodes = [...cluster.nodeIPs.keys()].sort();
  const namespaces = cluster.client.resource<Namespace>(NAMESPACES);
  for (const ns of NAMESPACE_NAMES) await namespaces.create({ metadata: { name: ns, labels: { ns } } });
  const script =
    'busybox mkdir -p /www && echo ok > /www/index.html && httpd -p 80 -h /www && exec httpd -f -p 81 -h /www';
  peers = [];
  let index = 0;
  for (const ns of NAMESPACE_NAMES) {
    for (const pod of POD_NAMES) {
      // Alternating nodes: every pod has peers on its own node and on the other.
      const nodeName = nodes[index++ % nodes.length]!;
      await cluster.pods.create({
        metadata: { name: pod, namespace: ns, labels: { pod } },
        spec: {
          nodeName,
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'serve',
              image: BUSYBOX,
              imagePullPolicy: 'Never',
              command: ['sh', '-c', script],
              ports: [
                { name: 'serve-80', containerPort: 80 },
                { name: 'serve-81', containerPort: 81 },
              ],
              readinessProbe: { tcpSocket: { port: 81 }, periodSeconds: 1 },
            },
          ],
        },
      });
      peers.push({ ns, pod, node: nodeName, ip: '' });
    }
  }
  for (const peer of peers) {
    const ready: Pod = await waitFor(
      () => cluster.pods.get(peer.ns, peer.pod),
      isReady,
      120_000,
      `${peer.ns}/${peer.pod} ready`,
    );
    peer.ip = ready.status!.podIP!;
  }
  await waitForRules(cluster, /:TKUBE-NETPOL /);
}, 400_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

const inNs = (ns: string, name: string, spec: NetworkPolicySpec) => ({ ns, name, spec });

describe('NetworkPolicy truth table (3 namespaces × 3 pods, two nodes, ports 80 and 81)', () => {
  it('without policies every pod reaches every pod', async () => {
    await expectMatrix([], () => true);
  }, 60_000);

  it('default deny ingress in x', async () => {
    await expectMatrix(
      [inNs('x', 'deny', { podSelector: {} })],
      (from, to) => to.ns !== 'x' || self(from, to),
    );
  }, 60_000);

  it('podSelector: x/a admits only x/b', async () => {
    await expectMatrix(
      [
        inNs('x', 'allow-b', {
          podSelector: { matchLabels: { pod: 'a' } },
          ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }],
        }),
      ],
      (from, to) =>
        !(to.ns === 'x' && to.pod === 'a') || self(from, to) || (from.ns === 'x' && from.pod === 'b'),
    );
  }, 60_000);

  it('namespaceSelector and podSelector separate (OR) and combined (AND)', async () => {
    await expectMatrix(
      [
        inNs('x', 'or', {
          podSelector: {},
          ingress: [
            {
              from: [
                { namespaceSelector: { matchLabels: { ns: 'y' } } },
                { podSelector: { matchLabels: { pod: 'c' } } },
              ],
            },
          ],
        }),
      ],
      (from, to) =>
        to.ns !== 'x' || self(from, to) || from.ns === 'y' || (from.ns === 'x' && from.pod === 'c'),
    );
    await expectMatrix(
      [
        inNs('x', 'and', {
          podSelector: {},
          ingress: [
            {
              from: [
                {
                  namespaceSelector: { matchLabels: { ns: 'y' } },
                  podSelector: { matchLabels: { pod: 'c' } },
                },
              ],
            },
          ],
        }),
      ],
      (from, to) => to.ns !== 'x' || self(from, to) || (from.ns === 'y' && from.pod === 'c'),
    );
  }, 120_000);

  it('ipBlock with except', async () => {
    const zc = peers.find((peer) => peer.ns === 'z' && peer.pod === 'c')!;
    await expectMatrix(
      [
        inNs('x', 'block', {
          podSelector: { matchLabels: { pod: 'a' } },
          ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: [`${zc.ip}/32`] } }] }],
        }),
      ],
      (from, to) => !(to.ns === 'x' && to.pod === 'a') || !(from.ns === 'z' && from.pod === 'c'),
    );
  }, 60_000);

  it('ports: a named port, and a range with endPort', async () => {
    await expectMatrix(
      [inNs('y', 'named', { podSelector: {}, ingress: [{ ports: [{ port: 'serve-81' }] }] })],
      (from, to, port) => to.ns !== 'y' || self(from, to) || port === 81,
    );
    await expectMatrix(
      [inNs('y', 'range', { podSelector: {}, ingress: [{ ports: [{ port: 75, endPort: 80 }] }] })],
      (from, to, port) => to.ns !== 'y' || self(from, to) || port === 80,
    );
  }, 120_000);

  it('egress: x may reach only namespace y on port 80, on either node', async () => {
    await expectMatrix(
      [
        inNs('x', 'egress', {
          podSelector: {},
          policyTypes: ['Egress'],
          egress: [{ to: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }], ports: [{ port: 80 }] }],
        }),
      ],
      (from, to, port) => from.ns !== 'x' || self(from, to) || (to.ns === 'y' && port === 80),
    );
  }, 60_000);

  it('ingress and egress together: z denies all egress, y admits only x', async () => {
    await expectMatrix(
      [
        inNs('z', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] }),
        inNs('y', 'only-x', {
          podSelector: {},
          ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }] }],
        }),
      ],
      (from, to) => self(from, to) || (from.ns !== 'z' && (to.ns !== 'y' || from.ns === 'x')),
    );
  }, 60_000);
});

describe('services', () => {
  it('are judged by their backend pod, after the proxy’s DNAT', async () => {
    const services = cluster.client.resource<Service>(SERVICES);
    const clusterIPs: Record<string, string> = {};
    for (const ns of ['y', 'z']) {
      const created = await services.create({
        metadata: { name: 'web', namespace: ns },
        spec: { selector: { pod: 'a' }, ports: [{ port: 8000, targetPort: 80 }] },
      });
      clusterIPs[ns] = created.spec!.clusterIP!;
    }
    await waitForRules(cluster, new RegExp(`-d ${clusterIPs.z!.replaceAll('.', '\\.')}/32 .*-j KUBE-SVC-`));
    await deleteAllPolicies();
    await applyPolicies([
      inNs('x', 'egress', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ to: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }], ports: [{ port: 80 }] }],
      }),
    ]);
    const reaches = async (ip: string) =>
      (await cluster.kubectl(['exec', '-n', 'x', 'b', '--', 'sh', '-c', probeCommand(ip, 8000)])).exitCode ===
      0;
    // The service port 8000 is in no rule: the backend's port 80 in namespace y is what counts.
    await waitFor(
      () => reaches(clusterIPs.y!),
      (ok) => ok,
      10_000,
      'x/b to the service in y',
    );
    expect(await reaches(clusterIPs.z!)).toBe(false);
    for (const ns of ['y', 'z']) await services.delete(ns, 'web');
  }, 60_000);
});

describe('cluster DNS under egress policies', () => {
  const lookup = async () =>
    cluster.kubectl([
      'exec',
      '-n',
      'x',
      'a',
      '--',
      'sh',
      '-c',
      'busybox timeout 4 nslookup kubernetes.default.svc.cluster.local',
    ]);

  it('is reachable only where an egress rule allows port 53', async () => {
    await deleteAllPolicies();
    expect((await lookup()).stdout).toMatch(/\b10\.96\.0\.1\b/);
    await applyPolicies([
      inNs('x', 'web-only', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ ports: [{ port: 80 }] }],
      }),
    ]);
    await waitFor(
      lookup,
      (result) => result.exitCode !== 0,
      10_000,
      'DNS refused under egress to port 80 only',
    );
    await policies().update({
      metadata: { name: 'web-only', namespace: 'x' },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ ports: [{ port: 80 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
      },
    });
    const answered = await waitFor(
      lookup,
      (result) => result.exitCode === 0,
      10_000,
      'DNS allowed by port 53',
    );
    expect(answered.stdout).toMatch(/\b10\.96\.0\.1\b/);
  }, 60_000);
});

describe('label changes', () => {
  it('a pod labelled into a policy’s podSelector is let in within a second', async () => {
    await deleteAllPolicies();
    await applyPolicies([
      inNs('x', 'clients', {
        podSelector: { matchLabels: { pod: 'a' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }],
      }),
    ]);
    const xa = peers.find((peer) => peer.ns === 'x' && peer.pod === 'a')!;
    await waitFor(
      async () => (await execa('docker', ['exec', xa.node, 'iptables-save', '-t', 'filter'])).stdout,
      (saved) => saved.includes('"x/a ingress"'),
      20_000,
      `x/a's rules on ${xa.node}`,
    );
    // Connects from x/b every 50 ms for 6 s, printing the kernel's uptime at each success: the
    // host reads the same clock just before the label change.
    const loop = cluster.kubectl([
      'exec',
      '-n',
      'x',
      'b',
      '--',
      'sh',
      '-c',
      `end=$(( $(busybox cut -d. -f1 /proc/uptime) + 6 )); while [ $(busybox cut -d. -f1 /proc/uptime) -lt $end ]; do (${probeCommand(xa.ip, 80, 1)} 2>/dev/null && cat /proc/uptime) & busybox sleep 0.05; done; wait`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const changedAt = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    await cluster.pods.patch('x', 'b', 'merge', {
      metadata: { labels: { role: 'client' } },
    });
    const result = await loop;
    const successes = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => Number(line.split(' ')[0]));
    expect(successes.length).toBeGreaterThan(0);
    const firstAfter = Math.min(...successes);
    expect(firstAfter).toBeGreaterThanOrEqual(changedAt);
    expect(firstAfter - changedAt).toBeLessThan(1);
  }, 60_000);
});
