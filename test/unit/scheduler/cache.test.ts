import { describe, expect, it } from 'vitest';
import { podRequests } from '../../../src/api/scheduling/pod-requests.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { SchedulerCache } from '../../../src/scheduler/cache/cache.js';
import { NodeTree } from '../../../src/scheduler/cache/node-tree.js';
import { Snapshot } from '../../../src/scheduler/cache/snapshot.js';
import { node, pod } from './fixtures.js';

const onNode = (member: Pod, nodeName: string): Pod => ({ ...member, spec: { ...member.spec!, nodeName } });

describe('SchedulerCache', () => {
  it('assumes, confirms and forgets pods', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    const p = onNode(pod('p', { cpu: '1' }), 'n1');
    cache.assumePod(p);
    expect(cache.isAssumedPod(p)).toBe(true);
    expect(() => cache.assumePod(p)).toThrow('is in the cache');
    expect(cache.nodeInfo('n1')!.requested.milliCPU).toBe(1000);
    cache.forgetPod(p);
    expect(cache.nodeInfo('n1')!.requested.milliCPU).toBe(0);
    expect(() => cache.forgetPod(p)).toThrow("wasn't assumed");
    cache.assumePod(p);
    cache.addPod(p);
    expect(cache.isAssumedPod(p)).toBe(false);
    expect(cache.nodeInfo('n1')!.pods).toHaveLength(1);
    expect(() => cache.addPod(p)).toThrow('already in added state');
  });

  it('moves a pod confirmed on another node than assumed', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    cache.addNode(node('n2'));
    const p = pod('p', { cpu: '1' });
    cache.assumePod(onNode(p, 'n1'));
    cache.addPod(onNode(p, 'n2'));
    expect(cache.nodeInfo('n1')!.requested.milliCPU).toBe(0);
    expect(cache.nodeInfo('n2')!.requested.milliCPU).toBe(1000);
  });

  it('expires assumed pods whose binding finished when a TTL is set', () => {
    let now = 0;
    const cache = new SchedulerCache({ assumedPodTtlMs: 30_000, now: () => now });
    cache.addNode(node('n1'));
    const p = onNode(pod('p', { cpu: '1' }), 'n1');
    cache.assumePod(p);
    now = 60_000;
    expect(cache.cleanupAssumedPods()).toEqual([]);
    cache.finishBinding(p);
    now += 30_001;
    expect(cache.cleanupAssumedPods().map((expired) => expired.metadata?.name)).toEqual(['p']);
    expect(cache.nodeInfo('n1')!.pods).toHaveLength(0);
  });

  it('sums requests with init-container maximum and overhead, and non-zero defaults for scoring', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    cache.addPod(
      onNode(
        pod('p', {
          spec: {
            containers: [
              { name: 'a', image: 'x', resources: { requests: { cpu: '500m' } } },
              { name: 'b', image: 'x' },
            ],
            initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '2', memory: '1Gi' } } }],
            overhead: { cpu: '100m', memory: '10Mi' },
          },
        }),
        'n1',
      ),
    );
    const info = cache.nodeInfo('n1')!;
    expect(info.requested.milliCPU).toBe(2100);
    expect(info.requested.memory).toBe(1024 ** 3 + 10 * 1024 ** 2);
    // Scoring: b has no requests → 100m / 200Mi; a has no memory → 200Mi; the init container is larger anyway.
    expect(info.nonZeroRequested.milliCPU).toBe(2100);
    expect(info.nonZeroRequested.memory).toBe(1024 ** 3 + 10 * 1024 ** 2);
    expect(podRequests(pod('bare'), true).milliCPU).toBe(100);
    expect(podRequests(pod('bare'), true).memory).toBe(200 * 1024 ** 2);
    expect(podRequests(pod('zero', { cpu: '0' }), true).milliCPU).toBe(0);
  });

  it('tracks host ports and the pods with affinity', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    const withAffinity = onNode(
      pod('a', {
        spec: {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: 'kubernetes.io/hostname', labelSelector: {} },
              ],
            },
          },
          containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }],
        },
      }),
      'n1',
    );
    cache.addPod(withAffinity);
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    expect(snapshot.havePodsWithAffinityList.map((info) => info.name)).toEqual(['n1']);
    expect(snapshot.havePodsWithRequiredAntiAffinityList.map((info) => info.name)).toEqual(['n1']);
    expect(snapshot.get('n1')!.usedPorts.checkConflict('', 'TCP', 8080)).toBe(true);
    cache.removePod(withAffinity);
    cache.updateSnapshot(snapshot);
    expect(snapshot.havePodsWithAffinityList).toEqual([]);
    expect(snapshot.get('n1')!.usedPorts.checkConflict('', 'TCP', 8080)).toBe(false);
  });

  it('counts image spread across nodes', () => {
    const cache = new SchedulerCache();
    const image = { names: ['app:v1'], sizeBytes: 100 };
    cache.addNode(node('n1', { images: [image] }));
    cache.addNode(node('n2', { images: [image] }));
    expect(cache.nodeInfo('n1')!.imageStates.get('app:v1')).toEqual({ size: 100, numNodes: 2 });
    cache.removeNode(node('n2'));
    expect(cache.nodeInfo('n1')!.imageStates.get('app:v1')!.numNodes).toBe(1);
  });

  it('keeps the pods of a deleted node until they are deleted too', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    const p = onNode(pod('p', { cpu: '1' }), 'n1');
    cache.addPod(p);
    cache.removeNode(node('n1'));
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    expect(snapshot.numNodes).toBe(0);
    expect(cache.nodeInfo('n1')!.pods).toHaveLength(1);
    cache.removePod(p);
    expect(cache.nodeInfo('n1')).toBeUndefined();
  });

  it('snapshots copy only changed nodes and do not see later changes', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n1'));
    cache.addNode(node('n2'));
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    const n2Before = snapshot.get('n2');
    cache.addPod(onNode(pod('p', { cpu: '1' }), 'n1'));
    expect(snapshot.get('n1')!.requested.milliCPU).toBe(0);
    cache.updateSnapshot(snapshot);
    expect(snapshot.get('n1')!.requested.milliCPU).toBe(1000);
    expect(snapshot.get('n2')).toBe(n2Before);
    expect(snapshot.nodeInfoList.map((info) => info.name)).toEqual(['n1', 'n2']);
  });
});

describe('NodeTree', () => {
  it('interleaves zones', () => {
    const tree = new NodeTree();
    const zoned = (name: string, zone: string) =>
      node(name, { labels: { 'topology.kubernetes.io/zone': zone } });
    for (const member of [
      zoned('a1', 'a'),
      zoned('a2', 'a'),
      zoned('a3', 'a'),
      zoned('b1', 'b'),
      zoned('c1', 'c'),
      zoned('c2', 'c'),
    ]) {
      tree.add(member);
    }
    expect(tree.list()).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    tree.remove(zoned('b1', 'b'));
    expect(tree.list()).toEqual(['a1', 'c1', 'a2', 'c2', 'a3']);
  });
});
