// A node whose kubelet stops, with simulated nodes and the whole control plane in process: the
// node lifecycle controller marks the Node Unknown and taints it unreachable, the taint eviction
// controller evicts its pods when their tolerationSeconds run out (not before), the ReplicaSet
// replaces them on the nodes still alive, and the evicted pods stay Terminating until the kubelet
// comes back and finishes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEPLOYMENTS, NODES, PODS } from '../../../src/client/resources.js';
import type { FakeNodes } from '../../../src/providers/fake/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

const NAMESPACE = 'default';
const APP = 'fnf-web';
const REPLICAS = 6;
const TOLERATION_SECONDS = 3;
const UNREACHABLE = 'node.kubernetes.io/unreachable';

describe('a fake node whose kubelet stops', () => {
  let cp: InProcessControlPlane;
  let fakeNodes: FakeNodes;

  beforeAll(async () => {
    cp = await startInProcessControlPlane({
      fakeNodes: { count: 3, leaseRenewIntervalMs: 200 },
      controllerSettings: {
        nodeMonitorPeriodMs: 200,
        nodeMonitorGracePeriodMs: 1500,
        nodeStartupGracePeriodMs: 3000,
        nodeEvictionRate: 100,
      },
    });
    fakeNodes = cp.controlPlane.fakeNodes!;
  }, 30_000);
  afterAll(async () => {
    await cp?.stop();
  });

  const pods = () => cp.admin.resource<Pod>(PODS);
  const nodes = () => cp.admin.resource<Node>(NODES);
  const appPods = async () => (await pods().list(NAMESPACE, { labelSelector: `app=${APP}` })).items;
  const readyOf = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');
  const taintsOf = (node: Node) => (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
  /** Running, not deleting pods per node, once there are `count` of them. */
  const runningByNode = async (count: number) => {
    const running = (await appPods()).filter(
      (pod) => pod.status?.phase === 'Running' && !pod.metadata?.deletionTimestamp,
    );
    if (running.length !== count) return undefined;
    const byNode = new Map<string, number>();
    for (const pod of running) byNode.set(pod.spec!.nodeName!, (byNode.get(pod.spec!.nodeName!) ?? 0) + 1);
    return byNode;
  };

  it('is tainted unreachable, its pods are evicted after their toleration and replaced elsewhere', async () => {
    await cp.admin.resource<Deployment>(DEPLOYMENTS).create({
      metadata: { name: APP, namespace: NAMESPACE },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: { app: APP } },
        template: {
          metadata: { labels: { app: APP } },
          spec: {
            containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
            tolerations: [
              {
                key: UNREACHABLE,
                operator: 'Exists',
                effect: 'NoExecute',
                tolerationSeconds: TOLERATION_SECONDS,
              },
            ],
            // Two per node; a tainted node leaves the spread (Honor), so replacements fit elsewhere.
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'kubernetes.io/hostname',
                whenUnsatisfiable: 'DoNotSchedule',
                labelSelector: { matchLabels: { app: APP } },
                nodeTaintsPolicy: 'Honor',
              },
            ],
          },
        },
      },
    });
    const spread = await eventually(() => runningByNode(REPLICAS), 15_000);
    expect([...spread.values()]).toEqual([2, 2, 2]);

    const failing = [...spread.keys()].sort()[0]!;
    const onFailing = (await appPods()).filter((pod) => pod.spec?.nodeName === failing);
    const onFailingNames = onFailing.map((pod) => pod.metadata!.name!).sort();
    fakeNodes.stopNode(failing);

    const unknown = await eventually(async () => {
      const node = await nodes().get('', failing);
      return readyOf(node)?.status === 'Unknown' ? node : undefined;
    }, 8000);
    expect(readyOf(unknown)).toMatchObject({
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    await eventually(async () => {
      const taints = taintsOf(await nodes().get('', failing));
      return taints.includes(`${UNREACHABLE}:NoExecute`) && taints.includes(`${UNREACHABLE}:NoSchedule`)
        ? taints
        : undefined;
    }, 8000);
    const taintSeenAt = Date.now();
    // The other nodes keep renewing their leases: still Ready, untainted.
    for (const name of spread.keys()) {
      if (name === failing) continue;
      const node = await nodes().get('', name);
      expect(readyOf(node)?.status).toBe('True');
      expect(taintsOf(node)).toEqual([]);
    }

    // Not evicted before the toleration runs out; then every pod of the node is.
    const evictedAt = await eventually(async () => {
      const current = await Promise.all(onFailingNames.map((name) => pods().get(NAMESPACE, name)));
      return current.every((pod) => pod.metadata?.deletionTimestamp) ? Date.now() : undefined;
    }, 15_000);
    expect(evictedAt - taintSeenAt).toBeGreaterThan(TOLERATION_SECONDS * 1000 - 500);
    for (const name of onFailingNames) {
      const pod = await pods().get(NAMESPACE, name);
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
      expect(pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
        status: 'True',
        reason: 'DeletionByTaintManager',
      });
    }

    // Replaced on the two nodes left, three each; nothing new lands on the tainted node.
    const replaced = await eventually(() => runningByNode(REPLICAS), 15_000);
    expect(replaced.has(failing)).toBe(false);
    expect([...replaced.values()]).toEqual([3, 3]);
    // With no kubelet to confirm, the evicted pods are still there, Terminating.
    const stillTerminating = (await appPods()).filter((pod) => pod.spec?.nodeName === failing);
    expect(stillTerminating.map((pod) => pod.metadata!.name!).sort()).toEqual(onFailingNames);
  }, 60_000);

  it('is untainted when its kubelet comes back, which finishes the evicted pods', async () => {
    const tainted = (await nodes().list('')).items.filter((node) =>
      taintsOf(node).includes(`${UNREACHABLE}:NoExecute`),
    );
    expect(tainted).toHaveLength(1);
    const name = tainted[0]!.metadata!.name!;
    fakeNodes.restartNode(name);
    await eventually(async () => {
      const node = await nodes().get('', name);
      return readyOf(node)?.status === 'True' && taintsOf(node).length === 0 ? node : undefined;
    }, 8000);
    await eventually(async () =>
      (await appPods()).every((pod) => pod.spec?.nodeName !== name) ? true : undefined,
    );
    expect(await runningByNode(REPLICAS)).toBeDefined();
  }, 30_000);
});
