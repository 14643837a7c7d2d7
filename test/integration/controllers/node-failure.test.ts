// A node whose kubelet stops, on `tkube up --nodes 0 --fake-nodes 2`, seen through the real
// kubectl: the fake kubelet is stopped with its annotation, the node lifecycle controller marks
// the Node Unknown once the grace period has passed and taints it unreachable, the pods are
// evicted when their toleration (5 s) runs out and replaced on the other node; removing the
// annotation brings the node back Ready and untainted. The cluster config sets
// `node-monitor-grace-period` to 25 s rather than upstream's 50 s: two and a half of the fake
// kubelets' 10 s Lease renewals, so the healthy node never goes Unknown even when a renewal is
// late on a loaded machine. The stopped one does 25–30 s after its last renewal (the 5 s monitor
// period), and is tainted NoExecute one monitor pass later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { FAKE_KUBELET_STOPPED_ANNOTATION } from '../../../src/providers/fake/index.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

const UNREACHABLE = 'node.kubernetes.io/unreachable';
const TOLERATION_SECONDS = 5;
const GRACE_PERIOD_SECONDS = 25;

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('nodefail', {
    fakeNodes: 2,
    config: `apiVersion: tkube.dev/v1alpha1
kind: Cluster
nodes: []
controllerManager:
  extraArgs:
    node-monitor-grace-period: ${GRACE_PERIOD_SECONDS}s
`,
  });
}, 120_000);
afterAll(() => cluster?.down(), 60_000);

async function getJson<T>(args: string[]): Promise<T> {
  const result = await cluster.kubectl(['get', ...args, '-o', 'json']);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as T;
}
const node = (name: string) => getJson<Node>(['node', name]);
const appPods = async () => (await getJson<{ items: Pod[] }>(['pods', '-l', 'app=web'])).items;
const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
const taintsOf = (n: Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const live = (pods: Pod[]) =>
  pods.filter((pod) => pod.status?.phase === 'Running' && !pod.metadata?.deletionTimestamp);

describe('a fake node whose kubelet stops', () => {
  it('is tainted unreachable, its pods are evicted after their toleration and run elsewhere', async () => {
    const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: registry.k8s.io/pause:3.10}]
      tolerations:
      - {key: ${UNREACHABLE}, operator: Exists, effect: NoExecute, tolerationSeconds: ${TOLERATION_SECONDS}}
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Honor, labelSelector: {matchLabels: {app: web}}}
`;
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: deployment })).exitCode).toBe(0);
    const rollout = await cluster.kubectl(['rollout', 'status', 'deployment/web', '--timeout=15s']);
    expect(rollout.exitCode).toBe(0);
    const before = live(await appPods());
    expect(before.filter((pod) => pod.spec?.nodeName === 'fake-node-0')).toHaveLength(2);
    const onFailing = before
      .filter((pod) => pod.spec?.nodeName === 'fake-node-0')
      .map((pod) => pod.metadata!.name!);

    const annotate = await cluster.kubectl([
      'annotate',
      'node',
      'fake-node-0',
      `${FAKE_KUBELET_STOPPED_ANNOTATION}=true`,
    ]);
    expect(annotate.stdout).toBe('node/fake-node-0 annotated');

    const unknown = await eventually(async () => {
      const current = await node('fake-node-0');
      return readyOf(current)?.status === 'Unknown' && taintsOf(current).length === 2 ? current : undefined;
    }, 60_000);
    expect(readyOf(unknown)).toMatchObject({
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    expect(taintsOf(unknown)).toEqual([`${UNREACHABLE}:NoExecute`, `${UNREACHABLE}:NoSchedule`]);
    const taintedAt = Date.now();
    expect(readyOf(await node('fake-node-1'))?.status).toBe('True');

    // Evicted only once the toleration has run out; the ReplicaSet replaces them on fake-node-1.
    const evictedAt = await eventually(async () => {
      const pods = await appPods();
      const evicted = onFailing.every((name) =>
        pods.some((pod) => pod.metadata?.name === name && pod.metadata.deletionTimestamp),
      );
      return evicted ? Date.now() : undefined;
    }, 15_000);
    expect(evictedAt - taintedAt).toBeGreaterThan(TOLERATION_SECONDS * 1000 - 1500);
    const replaced = await eventually(async () => {
      const pods = live(await appPods());
      return pods.length === 4 ? pods : undefined;
    }, 10_000);
    expect(replaced.every((pod) => pod.spec?.nodeName === 'fake-node-1')).toBe(true);
    const events = await cluster.kubectl([
      'get',
      'events',
      '--field-selector',
      'reason=TaintManagerEviction',
    ]);
    expect(events.stdout).toContain('Marking for deletion Pod default/');
  }, 100_000);

  it('is Ready and untainted again once the annotation is removed; the evicted pods finish', async () => {
    await cluster.kubectl(['annotate', 'node', 'fake-node-0', `${FAKE_KUBELET_STOPPED_ANNOTATION}-`]);
    await eventually(async () => {
      const current = await node('fake-node-0');
      return readyOf(current)?.status === 'True' && taintsOf(current).length === 0 ? true : undefined;
    }, 15_000);
    const pods = await eventually(async () => {
      const all = await appPods();
      return all.every((pod) => pod.spec?.nodeName !== 'fake-node-0') ? all : undefined;
    }, 10_000);
    expect(live(pods)).toHaveLength(4);
  }, 30_000);
});
