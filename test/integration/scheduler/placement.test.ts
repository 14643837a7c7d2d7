// Issue 8's acceptance for node-level placement, end to end with real kubectl on
// `tkube up --nodes 0 --fake-nodes 3`: nodeSelector, required and preferred node affinity,
// taints and tolerations, resource fit with kube-scheduler's exact failure messages, and pods
// for another scheduler left alone. Labels and taints are set with kubectl, as a user would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import {
  boundNode,
  create,
  eventMessages,
  expectUnschedulable,
  getPod,
  nodesOf,
  ok,
  pod,
} from './support.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('sched-placement', { fakeNodes: 3 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

const namespace = async (name: string) => {
  await ok(cluster, ['create', 'namespace', name]);
};

describe('node-level placement', () => {
  it('places a pod with a nodeSelector only on a matching node, and moves it once a node matches', async () => {
    await namespace('selector');
    await ok(cluster, ['label', 'node', 'fake-node-1', 'disktype=ssd']);
    await create(
      cluster,
      'selector',
      pod('ssd', { spec: { nodeSelector: { disktype: 'ssd' } } }),
      pod('nvme', { spec: { nodeSelector: { disktype: 'nvme' } } }),
    );
    expect(await boundNode(cluster, 'selector', 'ssd')).toBe('fake-node-1');

    const message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. " +
      'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    await expectUnschedulable(cluster, 'selector', 'nvme', message);

    // A label change is a cluster event that sends the pod back to be scheduled.
    await ok(cluster, ['label', 'node', 'fake-node-2', 'disktype=nvme']);
    expect(await boundNode(cluster, 'selector', 'nvme')).toBe('fake-node-2');
  });

  it('honours required node affinity: In, NotIn, DoesNotExist and matchFields', async () => {
    await namespace('affinity');
    const required = (term: object) => ({
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } },
      },
    });
    await create(
      cluster,
      'affinity',
      pod('in-not-in', {
        spec: required({
          matchExpressions: [
            { key: 'disktype', operator: 'In', values: ['ssd', 'nvme'] },
            { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['fake-node-1'] },
          ],
        }),
      }),
      pod('no-disk', {
        spec: required({ matchExpressions: [{ key: 'disktype', operator: 'DoesNotExist' }] }),
      }),
      pod('by-name', {
        spec: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['fake-node-1'] }] }),
      }),
    );
    expect(await boundNode(cluster, 'affinity', 'in-not-in')).toBe('fake-node-2');
    expect(await boundNode(cluster, 'affinity', 'no-disk')).toBe('fake-node-0');
    expect(await boundNode(cluster, 'affinity', 'by-name')).toBe('fake-node-1');
  });

  it('prefers the node whose preferred terms weigh most', async () => {
    await namespace('preferred');
    const preferred = (terms: { weight: number; disktype: string }[]) => ({
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: terms.map(({ weight, disktype }) => ({
            weight,
            preference: { matchExpressions: [{ key: 'disktype', operator: 'In', values: [disktype] }] },
          })),
        },
      },
    });
    await create(
      cluster,
      'preferred',
      pod('likes-ssd', { spec: preferred([{ weight: 50, disktype: 'ssd' }]) }),
      pod('likes-nvme-more', {
        spec: preferred([
          { weight: 10, disktype: 'ssd' },
          { weight: 80, disktype: 'nvme' },
        ]),
      }),
    );
    expect(await boundNode(cluster, 'preferred', 'likes-ssd')).toBe('fake-node-1');
    expect(await boundNode(cluster, 'preferred', 'likes-nvme-more')).toBe('fake-node-2');
  });

  it('keeps pods off NoSchedule taints they do not tolerate and onto the ones they do', async () => {
    await namespace('taints');
    await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'fake-node-1', 'dedicated=infra:NoSchedule']);
    const onNode0 = { nodeSelector: { 'kubernetes.io/hostname': 'fake-node-0' } };
    await create(
      cluster,
      'taints',
      pod('plain', { labels: { app: 'plain' } }),
      pod('tolerant', {
        spec: {
          ...onNode0,
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
        },
      }),
      pod('intolerant', { spec: onNode0 }),
    );
    expect(await boundNode(cluster, 'taints', 'plain')).toBe('fake-node-2');
    expect(await boundNode(cluster, 'taints', 'tolerant')).toBe('fake-node-0');

    const message =
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, " +
      '2 node(s) had untolerated taint {dedicated: infra}. ' +
      'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    await expectUnschedulable(cluster, 'taints', 'intolerant', message);

    // Removing the taint is a node update that requeues the pod.
    await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'fake-node-1', 'dedicated-']);
    expect(await boundNode(cluster, 'taints', 'intolerant')).toBe('fake-node-0');
  });

  it('avoids PreferNoSchedule taints while an untainted node is left', async () => {
    await namespace('prefer-no');
    await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'fake-node-1', 'flaky=true:PreferNoSchedule']);
    try {
      await create(
        cluster,
        'prefer-no',
        ...['a', 'b', 'c'].map((name) => pod(name, { labels: { app: 'avoid' } })),
      );
      for (const name of ['a', 'b', 'c']) await boundNode(cluster, 'prefer-no', name);
      expect(await nodesOf(cluster, 'prefer-no', 'app=avoid')).toEqual([
        'fake-node-2',
        'fake-node-2',
        'fake-node-2',
      ]);
    } finally {
      await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'fake-node-1', 'flaky-']);
    }
  });

  it('leaves a pod that fits nowhere Pending with the upstream message, and binds it once room frees up', async () => {
    await namespace('fit');
    await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'dedicated=infra:NoSchedule']);
    await create(cluster, 'fit', pod('huge', { requests: { cpu: '100' } }));
    const mixed =
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, ' +
      '2 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'fit', 'huge', mixed);
    expect(await ok(cluster, ['describe', 'pod', 'huge', '-n', 'fit'])).toMatch(/PodScheduled\s+False/);
    await ok(cluster, ['taint', 'nodes', 'fake-node-0', 'dedicated-']);

    // Fake nodes offer 8 cpu each: three 7-cpu pods fill them, a fourth waits for one to go.
    await create(
      cluster,
      'fit',
      ...['big-0', 'big-1', 'big-2'].map((name) =>
        pod(name, { labels: { app: 'big' }, requests: { cpu: '7' } }),
      ),
    );
    for (const name of ['big-0', 'big-1', 'big-2']) await boundNode(cluster, 'fit', name);
    expect(new Set(await nodesOf(cluster, 'fit', 'app=big'))).toEqual(
      new Set(['fake-node-0', 'fake-node-1', 'fake-node-2']),
    );
    await create(cluster, 'fit', pod('big-3', { labels: { app: 'big' }, requests: { cpu: '7' } }));
    const full =
      '0/3 nodes are available: 3 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'fit', 'big-3', full);

    const freed = (await getPod(cluster, 'fit', 'big-1')).spec?.nodeName;
    await ok(cluster, ['delete', 'pod', 'big-1', '-n', 'fit', '--wait=true']);
    expect(await boundNode(cluster, 'fit', 'big-3')).toBe(freed);
    expect(await eventMessages(cluster, 'fit', 'big-3', 'Scheduled')).toEqual([
      `Successfully assigned fit/big-3 to ${freed}`,
    ]);
  });

  it('leaves pods for another scheduler alone: no binding, no condition, no event', async () => {
    await namespace('names');
    await create(cluster, 'names', pod('elsewhere', { spec: { schedulerName: 'my-scheduler' } }));
    // A pod created after it is scheduled: the scheduler has seen both by then.
    await create(cluster, 'names', pod('here'));
    await boundNode(cluster, 'names', 'here');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const elsewhere = await getPod(cluster, 'names', 'elsewhere');
    expect(elsewhere.spec?.schedulerName).toBe('my-scheduler');
    expect(elsewhere.spec?.nodeName).toBeUndefined();
    expect(elsewhere.status?.phase).toBe('Pending');
    expect(elsewhere.status?.conditions).toBeUndefined();
    expect(await eventMessages(cluster, 'names', 'elsewhere')).toEqual([]);
    expect(await eventMessages(cluster, 'names', 'here', 'Scheduled')).toHaveLength(1);
  });
});
