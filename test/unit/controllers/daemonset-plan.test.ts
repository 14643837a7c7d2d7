// The DaemonSet decisions without a cluster: eligibility from nodeSelector and taints, what manage
// creates and deletes, how RollingUpdate spends maxUnavailable and maxSurge, and the status counts.
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  daemonSetStatus,
  type NodeState,
  planManage,
  planRollingUpdate,
  updateBudgets,
} from '../../../src/controllers/daemonset/daemon-plan.js';
import {
  daemonPodTemplate,
  nodeShouldRunDaemonPod,
  pinnedToNode,
  targetNodeName,
} from '../../../src/controllers/daemonset/daemon-pods.js';
import { FailedPodsBackoff } from '../../../src/controllers/daemonset/failed-pods-backoff.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const HASH = 'new';

function ds(spec: Partial<NonNullable<DaemonSet['spec']>> = {}): DaemonSet {
  return {
    metadata: { name: 'd', namespace: 'ns', generation: 2 },
    spec: {
      selector: { matchLabels: { app: 'd' } },
      template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      ...spec,
    },
  };
}

let seq = 0;
function pod(
  node: string,
  hash: string,
  opts: { ready?: boolean; phase?: string; deleting?: boolean } = {},
): Pod {
  seq++;
  return {
    metadata: {
      name: `p${seq}`,
      uid: `u${seq}`,
      creationTimestamp: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
      labels: { app: 'd', 'controller-revision-hash': hash },
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:09:00Z' } : {}),
    },
    spec: { nodeName: node, containers: [] },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: [
        {
          type: 'Ready',
          status: opts.ready === false ? 'False' : 'True',
          lastTransitionTime: '2026-01-01T00:01:00Z',
        },
      ],
    },
  };
}

const node = (name: string, extra: Partial<Node> = {}): Node => ({
  metadata: { name, labels: {} },
  ...extra,
});
const eligible = (...names: string[]): NodeState[] =>
  names.map((name) => ({ name, placement: { shouldRun: true, shouldContinueRunning: true } }));
const byNode = (...pods: Pod[]) => {
  const map = new Map<string, Pod[]>();
  for (const p of pods) map.set(p.spec!.nodeName!, [...(map.get(p.spec!.nodeName!) ?? []), p]);
  return map;
};

describe('daemon pod placement', () => {
  it('pins a pod to its node, keeping the label expressions of required terms', () => {
    expect(pinnedToNode(undefined, 'n1')).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
        },
      },
    });
    const kept = pinnedToNode(
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
          },
        },
      },
      'n2',
    );
    expect(kept.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
      {
        matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }],
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }],
      },
    ]);
    const template = daemonPodTemplate(ds(), 'h', 'n1');
    expect(targetNodeName({ spec: template.spec! })).toBe('n1');
    expect(template.metadata?.labels).toEqual({ app: 'd', 'controller-revision-hash': 'h' });
  });

  it('adds the network-unavailable toleration only for host-network pods', () => {
    const hostNetwork = ds({
      template: { metadata: { labels: { app: 'd' } }, spec: { hostNetwork: true, containers: [] } },
    });
    const keys = (d: DaemonSet) =>
      (daemonPodTemplate(d, '', undefined).spec?.tolerations ?? []).map((t) => t.key);
    expect(keys(hostNetwork)).toContain('node.kubernetes.io/network-unavailable');
    expect(keys(ds())).not.toContain('node.kubernetes.io/network-unavailable');
  });

  it('checks required node affinity by its label expressions, field terms standing for the node itself', () => {
    const withAffinity = (terms: object[]) =>
      ds({
        template: {
          metadata: { labels: { app: 'd' } },
          spec: {
            containers: [],
            affinity: {
              nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
            },
          },
        },
      });
    const zoneA = node('n', { metadata: { name: 'n', labels: { zone: 'a' } } });
    const zoneB = node('m', { metadata: { name: 'm', labels: { zone: 'b' } } });
    const byZone = withAffinity([
      {
        matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }],
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['elsewhere'] }],
      },
    ]);
    expect(nodeShouldRunDaemonPod(zoneA, byZone).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(zoneB, byZone).shouldRun).toBe(false);
    const fieldsOnly = withAffinity([
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['elsewhere'] }] },
    ]);
    expect(nodeShouldRunDaemonPod(zoneB, fieldsOnly).shouldRun).toBe(true);
  });

  it('decides by nodeSelector and by NoSchedule and NoExecute taints', () => {
    const selective = ds({
      template: {
        metadata: { labels: { app: 'd' } },
        spec: { nodeSelector: { role: 'edge' }, containers: [] },
      },
    });
    expect(nodeShouldRunDaemonPod(node('a'), selective)).toEqual({
      shouldRun: false,
      shouldContinueRunning: false,
    });
    expect(
      nodeShouldRunDaemonPod(node('a', { metadata: { name: 'a', labels: { role: 'edge' } } }), selective)
        .shouldRun,
    ).toBe(true);
    const taint = (effect: string) => node('t', { spec: { taints: [{ key: 'k', effect }] } });
    expect(nodeShouldRunDaemonPod(taint('NoSchedule'), ds())).toEqual({
      shouldRun: false,
      shouldContinueRunning: true,
    });
    expect(nodeShouldRunDaemonPod(taint('NoExecute'), ds())).toEqual({
      shouldRun: false,
      shouldContinueRunning: false,
    });
    expect(nodeShouldRunDaemonPod(taint('PreferNoSchedule'), ds()).shouldRun).toBe(true);
    // The taints of a cordoned or not-ready node are tolerated.
    const cordoned = node('c', {
      spec: {
        taints: [
          { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
        ],
      },
    });
    expect(nodeShouldRunDaemonPod(cordoned, ds()).shouldRun).toBe(true);
  });
});

describe('manage', () => {
  it('creates where missing, deletes failed pods, extra copies and pods of gone or ineligible nodes', () => {
    const keep = pod('a', HASH);
    const extra = pod('a', HASH);
    const failed = pod('b', HASH, { phase: 'Failed' });
    const gone = pod('zz', HASH);
    const evicted = pod('x', HASH);
    const nodes: NodeState[] = [
      ...eligible('a', 'b', 'c'),
      { name: 'x', placement: { shouldRun: false, shouldContinueRunning: false } },
    ];
    const plan = planManage(ds(), nodes, byNode(keep, extra, failed, gone, evicted), HASH, NOW);
    expect(plan.createOn).toEqual(['c']);
    expect(plan.failed).toEqual([failed]);
    expect(plan.remove.map((p) => p.metadata!.name).sort()).toEqual(
      [extra, failed, gone, evicted].map((p) => p.metadata!.name).sort(),
    );
  });

  it('with surge keeps an old and an updated pod until the updated one is available', () => {
    const surge = ds({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    });
    const old = pod('a', 'old');
    const fresh = pod('a', HASH, { ready: false });
    expect(planManage(surge, eligible('a'), byNode(old, fresh), HASH, NOW).remove).toEqual([]);
    const ready = pod('a', HASH);
    expect(planManage(surge, eligible('a'), byNode(old, ready), HASH, NOW).remove).toEqual([old]);
  });
});

describe('rolling update', () => {
  it('scales maxUnavailable and maxSurge on the desired count, rounding up', () => {
    expect(updateBudgets(ds(), 10)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(
      updateBudgets(
        ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } } }),
        10,
      ),
    ).toEqual({ maxSurge: 0, maxUnavailable: 3 });
    expect(
      updateBudgets(
        ds({
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: 0 } },
        }),
        10,
      ),
    ).toEqual({ maxSurge: 1, maxUnavailable: 0 });
  });

  it('deletes old pods within maxUnavailable, and unavailable old pods at once', () => {
    const d = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } });
    const pods = [pod('a', 'old'), pod('b', 'old'), pod('c', 'old'), pod('d', 'old', { ready: false })];
    const plan = planRollingUpdate(d, eligible('a', 'b', 'c', 'd'), byNode(...pods), HASH, NOW);
    // d is unavailable already: it goes, and one more fits the budget of two.
    expect(plan.remove.map((p) => p.spec!.nodeName).sort()).toEqual(['a', 'd']);
    expect(plan.createOn).toEqual([]);
    // An updated pod still starting uses the budget up.
    const busy = [pod('a', HASH, { ready: false }), pod('b', HASH, { ready: false }), pod('c', 'old')];
    expect(planRollingUpdate(d, eligible('a', 'b', 'c'), byNode(...busy), HASH, NOW).remove).toEqual([]);
  });

  it('with maxSurge starts updated pods beside old ones and deletes the old once replaced', () => {
    const d = ds({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    });
    const first = planRollingUpdate(
      d,
      eligible('a', 'b'),
      byNode(pod('a', 'old'), pod('b', 'old')),
      HASH,
      NOW,
    );
    expect(first).toEqual({ createOn: ['a'], remove: [] });
    const oldA = pod('a', 'old');
    const waiting = planRollingUpdate(
      d,
      eligible('a', 'b'),
      byNode(oldA, pod('a', HASH, { ready: false }), pod('b', 'old')),
      HASH,
      NOW,
    );
    expect(waiting).toEqual({ createOn: [], remove: [] });
    const done = planRollingUpdate(
      d,
      eligible('a', 'b'),
      byNode(oldA, pod('a', HASH), pod('b', 'old')),
      HASH,
      NOW,
    );
    expect(done.remove).toEqual([oldA]);
  });
});

describe('failed pods backoff', () => {
  it('doubles from one second up to fifteen minutes per key, and forgets idle keys', () => {
    const backoff = new FailedPodsBackoff();
    expect(backoff.inBackoff('k', 0)).toBe(false);
    backoff.next('k', 0);
    expect(backoff.delay('k')).toBe(1_000);
    expect(backoff.inBackoff('k', 999)).toBe(true);
    expect(backoff.inBackoff('k', 1_000)).toBe(false);
    backoff.next('k', 1_000);
    expect(backoff.delay('k')).toBe(2_000);
    for (let i = 0; i < 20; i++) backoff.next('k', 2_000);
    expect(backoff.delay('k')).toBe(15 * 60_000);
    backoff.gc(2_000 + 30 * 60_000 + 1);
    expect(backoff.delay('k')).toBe(0);
  });
});

describe('status', () => {
  it('counts desired, scheduled, ready, available, updated and misscheduled over the oldest pod per node', () => {
    const d = ds({ minReadySeconds: 3600 });
    const nodes: NodeState[] = [
      ...eligible('a', 'b', 'c'),
      { name: 'x', placement: { shouldRun: false, shouldContinueRunning: true } },
    ];
    const status = daemonSetStatus(
      d,
      nodes,
      byNode(pod('a', HASH), pod('b', 'old', { ready: false }), pod('x', HASH)),
      HASH,
      NOW,
    );
    expect(status).toEqual({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberReady: 1,
      numberAvailable: 0,
      numberUnavailable: 3,
      numberMisscheduled: 1,
      updatedNumberScheduled: 1,
      observedGeneration: 2,
    });
  });
});
