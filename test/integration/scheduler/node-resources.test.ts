// Issue 8's acceptance for what a node offers, end to end with real kubectl on
// `tkube up --nodes 0 --fake-nodes 3` (8 cpu, 32Gi and 110 pods per node): the default scores
// (LeastAllocated, BalancedAllocation, ImageLocality), cordoned nodes, spec.nodeName, host ports,
// init-container requests, an extended resource advertised the way the Kubernetes docs show, and
// the `pods` capacity, and a RuntimeClass's pod overhead. The scoring tests run first, on nodes that hold none of this file's pods.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import {
  boundNode,
  create,
  eventMessages,
  expectUnschedulable,
  FAKE_NODES,
  getPod,
  ok,
  pod,
  until,
} from './support.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('sched-node-resources', { fakeNodes: 3 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

const onNode = (node: string) => ({ nodeSelector: { 'kubernetes.io/hostname': node } });

/** A pod requesting `cpu` and `memory`, pinned to `node` when given. */
function sized(name: string, cpu: string, memory: string, node?: string): Pod {
  return pod(name, { requests: { cpu, memory }, spec: node ? onNode(node) : {} });
}

async function emptyNamespace(name: string): Promise<void> {
  await ok(cluster, ['delete', 'pods', '--all', '-n', name, '--wait=true']);
}

/** The node's allocatable quantity of `resource`, or undefined. */
async function allocatable(node: string, resource: string): Promise<string | undefined> {
  const object = JSON.parse(await ok(cluster, ['get', 'node', node, '-o', 'json'])) as {
    status?: { allocatable?: Record<string, string> };
  };
  return object.status?.allocatable?.[resource];
}

/** Binds `pinned` to their nodes, then returns where the scheduler puts `free`; cleans up after. */
async function placedBeside(namespace: string, pinned: Pod[], free: Pod): Promise<string> {
  await ok(cluster, ['create', 'namespace', namespace]);
  await create(cluster, namespace, ...pinned);
  for (const placed of pinned) await boundNode(cluster, namespace, placed.metadata!.name!);
  await create(cluster, namespace, free);
  const node = await boundNode(cluster, namespace, free.metadata!.name!);
  await emptyNamespace(namespace);
  return node;
}

describe('scores', () => {
  it('prefers the least allocated node when every node is as balanced', async () => {
    // Each node is used in the ratio it offers (1 cpu : 4Gi), so BalancedAllocation ties.
    const pinned = [
      sized('half', '4', '16Gi', 'fake-node-0'),
      sized('quarter', '2', '8Gi', 'fake-node-1'),
      sized('most', '6', '24Gi', 'fake-node-2'),
    ];
    expect(await placedBeside('least', pinned, sized('free', '1', '4Gi'))).toBe('fake-node-1');
  });

  it('prefers the more balanced node when two are as allocated', async () => {
    // With the new pod (1 cpu, 1Gi), fake-node-0 would be 5/8 cpu and 2/32 memory used, and
    // fake-node-1 3/8 and 9/32: the same LeastAllocated score, 67, but 72 against 95 for
    // BalancedAllocation. fake-node-2 is nearly full.
    const pinned = [
      sized('cpu-heavy', '4', '1Gi', 'fake-node-0'),
      sized('even', '2', '8Gi', 'fake-node-1'),
      sized('full', '6', '24Gi', 'fake-node-2'),
    ];
    expect(await placedBeside('balanced', pinned, sized('free', '1', '1Gi'))).toBe('fake-node-1');
  });

  it('prefers a node that already has the image (ImageLocality)', async () => {
    await ok(cluster, ['create', 'namespace', 'images']);
    // What a kubelet reports after pulling: a 1 GB image on fake-node-2. Its status patches do
    // not touch `images`, so the list stays.
    const images = { status: { images: [{ names: ['example.com/big:1.0'], sizeBytes: 1_000_000_000 }] } };
    await ok(cluster, [
      'patch',
      'node',
      'fake-node-2',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(images),
    ]);
    const big = pod('big');
    big.spec!.containers[0]!.image = 'example.com/big:1.0';
    await create(cluster, 'images', big);
    expect(await boundNode(cluster, 'images', 'big')).toBe('fake-node-2');
    await emptyNamespace('images');
  });
});

describe('node state', () => {
  it('keeps pods off cordoned nodes unless they tolerate it, and places them on uncordon', async () => {
    await ok(cluster, ['create', 'namespace', 'cordon']);
    await ok(cluster, ['cordon', ...FAKE_NODES]);
    try {
      await create(
        cluster,
        'cordon',
        pod('waits'),
        pod('tolerates', {
          spec: {
            tolerations: [
              { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
            ],
          },
        }),
      );
      const message =
        '0/3 nodes are available: 3 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
      await expectUnschedulable(cluster, 'cordon', 'waits', message);
      expect(FAKE_NODES).toContain(await boundNode(cluster, 'cordon', 'tolerates'));
    } finally {
      await ok(cluster, ['uncordon', 'fake-node-1']);
    }
    // Uncordoning is a node update that sends the waiting pod back to be scheduled.
    expect(await boundNode(cluster, 'cordon', 'waits')).toBe('fake-node-1');
    await ok(cluster, ['uncordon', ...FAKE_NODES]);
  });

  it('leaves a pod that names its node to that node: no scheduling, no Scheduled event', async () => {
    await ok(cluster, ['create', 'namespace', 'named']);
    await create(cluster, 'named', pod('direct', { spec: { nodeName: 'fake-node-2' } }));
    await until('direct to run', async () =>
      (await getPod(cluster, 'named', 'direct')).status?.phase === 'Running' ? true : undefined,
    );
    const direct = await getPod(cluster, 'named', 'direct');
    expect(direct.spec?.nodeName).toBe('fake-node-2');
    expect(direct.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    expect(await eventMessages(cluster, 'named', 'direct', 'Scheduled')).toEqual([]);
  });
});

describe('pod requirements', () => {
  it('gives each node one pod per host port and protocol', async () => {
    await ok(cluster, ['create', 'namespace', 'ports']);
    const withHostPort = (name: string, protocol: string) => {
      const made = pod(name, { labels: { app: 'ports' } });
      made.spec!.containers[0]!.ports = [{ containerPort: 80, hostPort: 8080, protocol }];
      return made;
    };
    await create(cluster, 'ports', ...[0, 1, 2].map((index) => withHostPort(`tcp-${index}`, 'TCP')));
    const nodes = await Promise.all([0, 1, 2].map((index) => boundNode(cluster, 'ports', `tcp-${index}`)));
    expect(new Set(nodes)).toEqual(new Set(FAKE_NODES));

    await create(cluster, 'ports', withHostPort('tcp-3', 'TCP'), withHostPort('udp', 'UDP'));
    const message =
      "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports. " +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'ports', 'tcp-3', message);
    // The same port number over UDP is another port.
    expect(FAKE_NODES).toContain(await boundNode(cluster, 'ports', 'udp'));
    await emptyNamespace('ports');
  });

  it('counts the largest init container request, not the sum with the app containers', async () => {
    await ok(cluster, ['create', 'namespace', 'init']);
    const withInit = (name: string, initCpu: string, appCpu: string): Pod => {
      const made = pod(name, { requests: { cpu: appCpu } });
      made.spec!.initContainers = [
        { name: 'setup', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: initCpu } } },
      ];
      return made;
    };
    // 6 + 6 cpu would not fit an 8-cpu node; max(6, 6) does. 9 cpu for setup fits nowhere.
    await create(cluster, 'init', withInit('fits', '6', '6'), withInit('too-big', '9', '1'));
    expect(FAKE_NODES).toContain(await boundNode(cluster, 'init', 'fits'));
    const message =
      '0/3 nodes are available: 3 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'init', 'too-big', message);
    await emptyNamespace('init');
  });

  it("adds a RuntimeClass's pod overhead to what a pod needs", async () => {
    await ok(cluster, ['create', 'namespace', 'overhead']);
    const runtimeClass = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'vm' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '2' } },
    };
    await ok(cluster, ['create', '-f', '-'], JSON.stringify(runtimeClass));
    // 7 cpu fit an 8-cpu node; 7 + 2 of overhead do not.
    await create(
      cluster,
      'overhead',
      pod('plain', { requests: { cpu: '7' } }),
      pod('in-vm', { requests: { cpu: '7' }, spec: { runtimeClassName: 'vm' } }),
    );
    expect(FAKE_NODES).toContain(await boundNode(cluster, 'overhead', 'plain'));
    expect((await getPod(cluster, 'overhead', 'in-vm')).spec?.overhead).toEqual({ cpu: '2' });
    const message =
      '0/3 nodes are available: 3 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'overhead', 'in-vm', message);
    await emptyNamespace('overhead');
  });

  it('places pods by an extended resource a node advertises, and stops when it is taken away', async () => {
    await ok(cluster, ['create', 'namespace', 'gpu']);
    // As the docs' "Advertise Extended Resources for a Node" does: a JSON patch on capacity; the
    // kubelet copies it to allocatable at its next status check.
    const path = '/status/capacity/example.com~1gpu';
    const patchCapacity = (operations: object[]) =>
      ok(cluster, [
        'patch',
        'node',
        'fake-node-1',
        '--subresource=status',
        '--type=json',
        '-p',
        JSON.stringify(operations),
      ]);
    // Two changes back to back: the second lands while the kubelet reports the first.
    await patchCapacity([{ op: 'add', path, value: '2' }]);
    await patchCapacity([{ op: 'add', path: '/status/capacity/example.com~1fpga', value: '1' }]);
    await until(
      'example.com/gpu and example.com/fpga in allocatable',
      async () =>
        (await allocatable('fake-node-1', 'example.com/gpu')) === '2' &&
        (await allocatable('fake-node-1', 'example.com/fpga')) === '1'
          ? true
          : undefined,
      40_000,
    );
    const gpus = (name: string, count: string) =>
      pod(name, {
        spec: {
          containers: [
            {
              name: 'main',
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: { 'example.com/gpu': count }, limits: { 'example.com/gpu': count } },
            },
          ],
        },
      });
    await create(cluster, 'gpu', gpus('two', '2'));
    expect(await boundNode(cluster, 'gpu', 'two')).toBe('fake-node-1');
    await create(cluster, 'gpu', gpus('one-more', '1'));
    const message =
      '0/3 nodes are available: 3 Insufficient example.com/gpu. ' +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'gpu', 'one-more', message);

    await patchCapacity([
      { op: 'remove', path },
      { op: 'remove', path: '/status/capacity/example.com~1fpga' },
    ]);
    await until(
      'example.com/gpu gone from allocatable',
      async () => ((await allocatable('fake-node-1', 'example.com/gpu')) === undefined ? true : undefined),
      40_000,
    );
    await emptyNamespace('gpu');
  }, 120_000);

  it("honours a node's pods capacity: Too many pods", async () => {
    await ok(cluster, ['create', 'namespace', 'many']);
    const capacity = Number(await allocatable('fake-node-0', 'pods'));
    expect(capacity).toBe(110);
    const onNodeNow = (
      await ok(cluster, [
        'get',
        'pods',
        '--all-namespaces',
        '--field-selector',
        'spec.nodeName=fake-node-0,status.phase!=Succeeded,status.phase!=Failed',
        '-o',
        'name',
      ])
    )
      .split('\n')
      .filter(Boolean).length;
    const room = capacity - onNodeNow;
    const fill = Array.from({ length: room }, (_, index) =>
      pod(`fill-${index}`, { spec: onNode('fake-node-0') }),
    );
    await create(cluster, 'many', ...fill);
    await until(`${room} pods bound to fake-node-0`, async () => {
      const bound = await ok(cluster, [
        'get',
        'pods',
        '-n',
        'many',
        '--field-selector',
        'spec.nodeName=fake-node-0',
        '-o',
        'name',
      ]);
      return bound.split('\n').filter(Boolean).length === room ? true : undefined;
    });
    await create(cluster, 'many', pod('one-too-many', { spec: onNode('fake-node-0') }));
    const message =
      "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't match Pod's node affinity/selector. " +
      'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, ' +
      '2 Preemption is not helpful for scheduling.';
    await expectUnschedulable(cluster, 'many', 'one-too-many', message);
    await ok(cluster, ['delete', 'pod', 'fill-0', '-n', 'many', '--wait=true']);
    expect(await boundNode(cluster, 'many', 'one-too-many')).toBe('fake-node-0');
  }, 120_000);
});
