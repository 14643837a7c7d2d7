import { describe, expect, it } from 'vitest';
import type { Taint, TopologySpreadConstraint } from '../../../../src/api/types/core-v1.generated.js';
import { PodInfo } from '../../../../src/scheduler/cache/pod-info.js';
import { ClusterObjects } from '../../../../src/scheduler/cluster-objects.js';
import { CycleState } from '../../../../src/scheduler/framework/cycle-state.js';
import { PodTopologySpread } from '../../../../src/scheduler/plugins/pod-topology-spread/plugin.js';
import { filterWith, frameworkOf, node, nodeInfo, pod, scoresOf } from '../fixtures.js';

const SKEW = "node(s) didn't match pod topology spread constraints";
const MISSING = "node(s) didn't match pod topology spread constraints (missing required label)";
const zone = (name: string) => ({ 'topology.kubernetes.io/zone': name });

function constraint(overrides: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint {
  return {
    maxSkew: 1,
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] },
    ...overrides,
  };
}

const matching = (name: string, labels: Record<string, string> = { foo: '' }) => pod(name, { labels });

/** zone1: a (2 matching pods), b (1); zone2: x (1), y (0). */
function fourNodes(options: { taintX?: Taint[]; ssdOn?: string[] } = {}) {
  const labels = (name: string, zoneName: string) => ({
    ...zone(zoneName),
    ...(options.ssdOn?.includes(name) ? { disk: 'ssd' } : {}),
  });
  return [
    nodeInfo(node('a', { labels: labels('a', 'zone1') }), [matching('a1'), matching('a2')]),
    nodeInfo(node('b', { labels: labels('b', 'zone1') }), [matching('b1')]),
    nodeInfo(node('x', { labels: labels('x', 'zone2'), taints: options.taintX }), [matching('x1')]),
    nodeInfo(node('y', { labels: labels('y', 'zone2') })),
  ];
}

function spreadFilter(
  infos: ReturnType<typeof fourNodes>,
  incoming: ReturnType<typeof pod>,
  objects?: ClusterObjects,
) {
  const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)], objects);
  return filterWith(framework, incoming, infos);
}

describe('PodTopologySpread filter', () => {
  it('keeps the skew between zones within maxSkew', () => {
    const incoming = pod('p', { labels: { foo: '' }, spec: { topologySpreadConstraints: [constraint()] } });
    // zone1 = 3, zone2 = 1: placing in zone1 gives 3 + 1 − 1 = 3 > 1.
    expect(spreadFilter(fourNodes(), incoming)).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
  });

  it('a pod not matching its own selector does not count itself', () => {
    const incoming = pod('p', {
      labels: { other: '' },
      spec: { topologySpreadConstraints: [constraint({ maxSkew: 2 })] },
    });
    // zone1: 3 + 0 − 1 = 2 ≤ 2.
    expect(spreadFilter(fourNodes(), incoming)).toEqual({ a: '', b: '', x: '', y: '' });
  });

  it('nodes without the topology label are unresolvable', () => {
    const infos = [...fourNodes(), nodeInfo(node('bare'))];
    const incoming = pod('p', { labels: { foo: '' }, spec: { topologySpreadConstraints: [constraint()] } });
    expect(spreadFilter(infos as ReturnType<typeof fourNodes>, incoming).bare).toBe(MISSING);
  });

  it('minDomains: with fewer domains than required, the global minimum counts as 0', () => {
    const incoming = pod('p', {
      labels: { foo: '' },
      spec: { topologySpreadConstraints: [constraint({ minDomains: 3 })] },
    });
    // zone2: 1 + 1 − 0 = 2 > 1.
    expect(spreadFilter(fourNodes(), incoming)).toEqual({ a: SKEW, b: SKEW, x: SKEW, y: SKEW });
    const enough = pod('p', {
      labels: { foo: '' },
      spec: { topologySpreadConstraints: [constraint({ minDomains: 2 })] },
    });
    expect(spreadFilter(fourNodes(), enough)).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
  });

  it('nodeAffinityPolicy Honor (default) counts only nodes matching the pod node affinity', () => {
    const spec = (policy?: string) => ({
      nodeSelector: { disk: 'ssd' },
      topologySpreadConstraints: [constraint({ nodeAffinityPolicy: policy })],
    });
    // Only a (zone1, no... 2 pods) and y (zone2, 0 pods) have ssd: zone1 = 2, zone2 = 0.
    const honored = spreadFilter(
      fourNodes({ ssdOn: ['a', 'y'] }),
      pod('p', { labels: { foo: '' }, spec: spec() }),
    );
    expect(honored).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
    // Only b (1 pod) and y (0): zone1 = 1, zone2 = 0 → zone1 gives 1 + 1 − 0 = 2.
    const onlyB = spreadFilter(
      fourNodes({ ssdOn: ['b', 'y'] }),
      pod('p', { labels: { foo: '' }, spec: spec() }),
    );
    expect(onlyB).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
    // Ignore counts every node: zone1 = 3, zone2 = 1.
    const ignored = spreadFilter(
      fourNodes({ ssdOn: ['b', 'y'] }),
      pod('p', { labels: { foo: '' }, spec: spec('Ignore') }),
    );
    expect(ignored).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
    // With a larger skew allowed, Honor admits zone1 where Ignore would not.
    const wide = (policy?: string) =>
      pod('p', {
        labels: { foo: '' },
        spec: {
          nodeSelector: { disk: 'ssd' },
          topologySpreadConstraints: [constraint({ maxSkew: 2, nodeAffinityPolicy: policy })],
        },
      });
    expect(spreadFilter(fourNodes({ ssdOn: ['b', 'y'] }), wide()).a).toBe('');
    expect(spreadFilter(fourNodes({ ssdOn: ['b', 'y'] }), wide('Ignore')).a).toBe(SKEW);
  });

  it('nodeTaintsPolicy Honor leaves out nodes with taints the pod does not tolerate', () => {
    const taintX: Taint[] = [{ key: 'k', value: 'v', effect: 'NoSchedule' }];
    const spec = (policy?: string) => ({
      topologySpreadConstraints: [constraint({ maxSkew: 2, nodeTaintsPolicy: policy })],
    });
    // Ignore (default): zone1 = 3, zone2 = 1 → zone1: 3 + 1 − 1 = 3 > 2.
    expect(spreadFilter(fourNodes({ taintX }), pod('p', { labels: { foo: '' }, spec: spec() })).a).toBe(SKEW);
    // Honor: x is left out, zone2 = 0 → zone1: 3 + 1 − 0 = 4 > 2 still; zone2: 0 + 1 − 0 = 1.
    const honored = spreadFilter(
      fourNodes({ taintX }),
      pod('p', { labels: { foo: '' }, spec: spec('Honor') }),
    );
    expect(honored).toEqual({ a: SKEW, b: SKEW, x: '', y: '' });
  });

  it('matchLabelKeys narrows the selector to pods with the same values', () => {
    const infos = [
      nodeInfo(node('a', { labels: zone('zone1') }), [
        matching('a1', { foo: '', version: 'v1' }),
        matching('a2', { foo: '', version: 'v1' }),
      ]),
      nodeInfo(node('x', { labels: zone('zone2') }), [matching('x1', { foo: '', version: 'v2' })]),
    ];
    const incoming = pod('p', {
      labels: { foo: '', version: 'v2' },
      spec: { topologySpreadConstraints: [constraint({ matchLabelKeys: ['version'] })] },
    });
    // Counting only version=v2: zone1 = 0, zone2 = 1 → zone2: 1 + 1 − 0 = 2 > 1.
    expect(spreadFilter(infos as ReturnType<typeof fourNodes>, incoming)).toEqual({ a: '', x: SKEW });
  });

  it('pods in other namespaces and terminating pods are not counted', () => {
    const infos = [
      nodeInfo(node('a', { labels: zone('zone1') }), [
        pod('other-ns', { namespace: 'other', labels: { foo: '' } }),
        {
          ...matching('leaving'),
          metadata: { ...matching('leaving').metadata, deletionTimestamp: '2024-01-01T00:00:00Z' },
        },
      ]),
      nodeInfo(node('x', { labels: zone('zone2') })),
    ];
    const incoming = pod('p', { labels: { foo: '' }, spec: { topologySpreadConstraints: [constraint()] } });
    expect(spreadFilter(infos as ReturnType<typeof fourNodes>, incoming)).toEqual({ a: '', x: '' });
  });

  it('AddPod / RemovePod update the counts (used by preemption)', () => {
    const infos = fourNodes();
    const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)]);
    const incoming = new PodInfo(
      pod('p', { labels: { foo: '' }, spec: { topologySpreadConstraints: [constraint()] } }),
    );
    const state = new CycleState();
    framework.runPreFilterPlugins(state, incoming, infos);
    const nodeX = infos[2]!;
    expect(framework.runFilterPlugins(state, incoming, nodeX)).toBeNull();
    // Adding one more matching pod to x: zone2 = 2, zone1 = 3 → x: 2 + 1 − 2 = 1, still fine; a: 3 + 1 − 2 = 2 > 1.
    framework.runPreFilterExtensionAddPod(state, incoming, new PodInfo(matching('new')), nodeX);
    expect(framework.runFilterPlugins(state, incoming, nodeX)).toBeNull();
    // Removing the two pods of a: zone1 = 1, zone2 = 2 → a: 1 + 1 − 1 = 1 fits.
    for (const member of [...infos[0]!.pods])
      framework.runPreFilterExtensionRemovePod(state, incoming, member, infos[0]!);
    expect(framework.runFilterPlugins(state, incoming, infos[0]!)).toBeNull();
  });
});

describe('PodTopologySpread score', () => {
  const soft = (key: string, maxSkew = 1): TopologySpreadConstraint => ({
    maxSkew,
    topologyKey: key,
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: { foo: '' } },
  });

  it('hostname spreading prefers nodes with fewer matching pods', () => {
    const infos = fourNodes().slice(0, 3);
    const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)]);
    const incoming = pod('p', {
      labels: { foo: '' },
      spec: { topologySpreadConstraints: [soft('kubernetes.io/hostname')] },
    });
    // counts a=2, b=1, x=1; weight ln(3 + 2); raw round(c × 1.609) → 3, 2, 2; normalised 100 × (3 + 2 − s) / 3.
    expect(scoresOf(framework, incoming, infos)).toEqual({ a: 66, b: 100, x: 100 });
  });

  it('zone spreading scores by the pods in the node’s zone', () => {
    const infos = fourNodes();
    const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)]);
    const incoming = pod('p', {
      labels: { foo: '' },
      spec: { topologySpreadConstraints: [soft('topology.kubernetes.io/zone')] },
    });
    // zone1 = 3, zone2 = 1; weight ln(4); raw round(3 × 1.386) = 4 and round(1.386) = 1 → 25 and 100.
    expect(scoresOf(framework, incoming, infos)).toEqual({ a: 25, b: 25, x: 100, y: 100 });
  });

  it('nodes lacking a topology label of explicit constraints score 0', () => {
    const infos = [...fourNodes().slice(2), nodeInfo(node('bare'))];
    const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)]);
    const incoming = pod('p', {
      labels: { foo: '' },
      spec: { topologySpreadConstraints: [soft('topology.kubernetes.io/zone')] },
    });
    expect(scoresOf(framework, incoming, infos)).toEqual({ x: 100, y: 100, bare: 0 });
  });

  it('uses the system default constraints with the selector of the owning ReplicaSet', () => {
    const objects = new ClusterObjects();
    objects.replicaSets.upsert({
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: {} },
    });
    const owned = (name: string) => {
      const member = pod(name, { labels: { app: 'web' } });
      member.metadata!.ownerReferences = [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true },
      ];
      return member;
    };
    const infos = [
      nodeInfo(node('a', { labels: zone('zone1') }), [owned('w1'), owned('w2')]),
      nodeInfo(node('x', { labels: zone('zone2') })),
    ];
    const { framework } = frameworkOf(infos, [(handle) => new PodTopologySpread(handle)], objects);
    // a: hostname 2 × ln 4 + 2, zone 2 × ln 4 + 4 → 12; x: 2 + 4 = 6 → a: 100 × 6 / 12 = 50.
    expect(scoresOf(framework, owned('new'), infos)).toEqual({ a: 50, x: 100 });
    // Without an owner or services the default selector is empty: no spreading.
    expect(scoresOf(framework, pod('lonely', { labels: { app: 'web' } }), infos)).toEqual({ a: 0, x: 0 });
  });
});
