// Issue 8's acceptance for constraints between pods, end to end with real kubectl on
// `tkube up --nodes 0 --fake-nodes 3` with two zones (fake-node-0 and -1 in zone-a, fake-node-2
// in zone-b): topology spread (maxSkew across topology.kubernetes.io/zone), required pod
// anti-affinity (one per node, the extra replica Pending with kube-scheduler's message) and
// required pod affinity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { boundNode, create, expectUnschedulable, nodesOf, ok, pod, until } from './support.js';

const ZONES: Record<string, string> = {
  'fake-node-0': 'zone-a',
  'fake-node-1': 'zone-a',
  'fake-node-2': 'zone-b',
};

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('sched-inter-pod', { fakeNodes: 3 });
  for (const [node, zone] of Object.entries(ZONES)) {
    await ok(cluster, ['label', 'node', node, `topology.kubernetes.io/zone=${zone}`]);
  }
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

const zoneSpread = (app: string) => ({
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app } },
    },
  ],
});

const onNode = (node: string) => ({ nodeSelector: { 'kubernetes.io/hostname': node } });

describe('inter-pod placement', () => {
  it('spreads pods across zones within maxSkew 1', async () => {
    await ok(cluster, ['create', 'namespace', 'spread']);
    // Two nodes in zone-a, one in zone-b: spreading by node alone would put 2 of 3 in zone-a.
    const names = ['s-0', 's-1', 's-2', 's-3'];
    for (const name of names) {
      await create(cluster, 'spread', pod(name, { labels: { app: 'spread' }, spec: zoneSpread('spread') }));
      await boundNode(cluster, 'spread', name);
    }
    const zones = (await nodesOf(cluster, 'spread', 'app=spread')).map((node) => ZONES[node]);
    expect(zones.filter((zone) => zone === 'zone-a')).toHaveLength(2);
    expect(zones.filter((zone) => zone === 'zone-b')).toHaveLength(2);
  });

  it('keeps a pod Pending while every zone it may use would exceed maxSkew, then places it', async () => {
    await ok(cluster, ['create', 'namespace', 'skew']);
    // zone-a holds two matching pods, zone-b none; zone-b's only node is cordoned.
    await create(
      cluster,
      'skew',
      pod('held-0', { labels: { app: 'skew' }, spec: onNode('fake-node-0') }),
      pod('held-1', { labels: { app: 'skew' }, spec: onNode('fake-node-1') }),
    );
    await boundNode(cluster, 'skew', 'held-0');
    await boundNode(cluster, 'skew', 'held-1');
    await ok(cluster, ['cordon', 'fake-node-2']);
    try {
      await create(cluster, 'skew', pod('spread', { labels: { app: 'skew' }, spec: zoneSpread('skew') }));
      const message =
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints. " +
        'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, ' +
        '2 No preemption victims found for incoming pod.';
      await expectUnschedulable(cluster, 'skew', 'spread', message);
    } finally {
      await ok(cluster, ['uncordon', 'fake-node-2']);
    }
    expect(await boundNode(cluster, 'skew', 'spread')).toBe('fake-node-2');
  });

  it('runs one replica per node under required anti-affinity; the extra one stays Pending', async () => {
    await ok(cluster, ['create', 'namespace', 'solo']);
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'solo' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'solo' } },
        template: {
          metadata: { labels: { app: 'solo' } },
          spec: {
            ...pod('unused').spec,
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'solo' } } },
                ],
              },
            },
          },
        },
      },
    };
    await create(cluster, 'solo', deployment);
    const placed = await until('three solo replicas bound', async () => {
      const nodes = await nodesOf(cluster, 'solo', 'app=solo');
      return nodes.length === 3 ? nodes : undefined;
    });
    expect(new Set(placed)).toEqual(new Set(Object.keys(ZONES)));
    const pending = await until('the fourth replica', async () => {
      const names = (
        await ok(cluster, [
          'get',
          'pods',
          '-n',
          'solo',
          '-l',
          'app=solo',
          '--field-selector',
          'spec.nodeName=',
          '-o',
          'jsonpath={.items[*].metadata.name}',
        ])
      )
        .split(' ')
        .filter(Boolean);
      return names.length === 1 ? names[0] : undefined;
    });
    const message =
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. " +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'solo', pending, message);
  });

  it('places a pod with required pod affinity in the zone of the pod it follows', async () => {
    await ok(cluster, ['create', 'namespace', 'follow']);
    await create(
      cluster,
      'follow',
      pod('leader', { labels: { role: 'leader' }, spec: onNode('fake-node-2') }),
    );
    await boundNode(cluster, 'follow', 'leader');
    await create(
      cluster,
      'follow',
      pod('follower', {
        spec: {
          affinity: {
            podAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  topologyKey: 'topology.kubernetes.io/zone',
                  labelSelector: { matchLabels: { role: 'leader' } },
                },
              ],
            },
          },
        },
      }),
    );
    expect(await boundNode(cluster, 'follow', 'follower')).toBe('fake-node-2');
  });
});
