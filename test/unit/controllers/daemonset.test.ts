// The DaemonSet controller with the whole control plane and simulated nodes in process: a pod on
// every node pinned by node affinity, nodeSelector and taints deciding eligibility, status counts,
// ControllerRevisions, a RollingUpdate to a new template, and OnDelete leaving old pods alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerRevision, DaemonSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from '../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { eventRecorded } from './workload-support.js';

const NS = 'default';
let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane({ fakeNodes: { count: 3 } });
}, 30_000);
afterAll(() => cp?.stop());

const daemonSets = () => cp.admin.resource<DaemonSet>(DAEMON_SETS);
const pods = () => cp.admin.resource<Pod>(PODS);
const nodes = () => cp.admin.resource<Node>(NODES);

function daemonSet(name: string, extra: Partial<NonNullable<DaemonSet['spec']>> = {}): DaemonSet {
  return {
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] },
      },
      ...extra,
    },
  };
}

const livePods = async (app: string) =>
  (await pods().list(NS, { labelSelector: `app=${app}` })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  );

const statusBecomes = (name: string, check: (ds: DaemonSet) => boolean, timeoutMs = 20_000) =>
  eventually(async () => {
    const ds = await daemonSets().get(NS, name);
    return check(ds) ? ds : undefined;
  }, timeoutMs);

describe('daemonset controller', () => {
  it('runs one pod per node, pinned through node affinity, with the daemon tolerations, and counts them', async () => {
    const nodeNames = (await nodes().list('')).items.map((n) => n.metadata!.name!).sort();
    expect(nodeNames).toHaveLength(3);
    await daemonSets().create(daemonSet('agent'));
    const ds = await statusBecomes(
      'agent',
      (d) =>
        d.status?.desiredNumberScheduled === 3 &&
        d.status.numberAvailable === 3 &&
        d.status.updatedNumberScheduled === 3,
    );
    expect(ds.status).toMatchObject({
      currentNumberScheduled: 3,
      numberReady: 3,
      numberMisscheduled: 0,
      numberUnavailable: 0,
      observedGeneration: ds.metadata!.generation,
    });
    const running = await livePods('agent');
    expect(running.map((p) => p.spec!.nodeName).sort()).toEqual(nodeNames);
    for (const pod of running) {
      expect(pod.metadata!.generateName).toBe('agent-');
      expect(pod.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec!.nodeName] }] },
        ],
      });
      const keys = (pod.spec!.tolerations ?? []).map((t) => `${t.key}:${t.effect}`);
      expect(keys).toEqual(
        expect.arrayContaining([
          'node.kubernetes.io/not-ready:NoExecute',
          'node.kubernetes.io/unreachable:NoExecute',
          'node.kubernetes.io/disk-pressure:NoSchedule',
          'node.kubernetes.io/memory-pressure:NoSchedule',
          'node.kubernetes.io/pid-pressure:NoSchedule',
          'node.kubernetes.io/unschedulable:NoSchedule',
        ]),
      );
      expect(keys).not.toContain('node.kubernetes.io/network-unavailable:NoSchedule');
    }
    const revisions = (
      await cp.admin.resource<ControllerRevision>(CONTROLLER_REVISIONS).list(NS)
    ).items.filter((r) => r.metadata?.ownerReferences?.[0]?.uid === ds.metadata!.uid);
    expect(revisions).toHaveLength(1);
    const hash = revisions[0]!.metadata!.labels!['controller-revision-hash'];
    expect(revisions[0]!.metadata!.name).toBe(`agent-${hash}`);
    expect(revisions[0]!.revision).toBe(1);
    for (const pod of running) expect(pod.metadata!.labels!['controller-revision-hash']).toBe(hash);
  });

  it('replaces a deleted pod on its node', async () => {
    const [victim] = await livePods('agent');
    await pods().delete(NS, victim!.metadata!.name!);
    const replaced = await eventually(async () => {
      const now = await livePods('agent');
      return now.length === 3 && !now.some((p) => p.metadata!.uid === victim!.metadata!.uid)
        ? now
        : undefined;
    });
    expect(replaced.some((p) => p.spec!.nodeName === victim!.spec!.nodeName)).toBe(true);
  });

  it('deletes and replaces a failed pod with a FailedDaemonPod event', async () => {
    const [victim] = await livePods('agent');
    await pods().patch(
      NS,
      victim!.metadata!.name!,
      'merge',
      { status: { phase: 'Failed' } },
      { subresource: 'status' },
    );
    const ds = await daemonSets().get(NS, 'agent');
    await eventRecorded(
      cp.admin,
      { ...ds, kind: 'DaemonSet' },
      'FailedDaemonPod',
      `Found failed daemon pod ${NS}/${victim!.metadata!.name} on node ${victim!.spec!.nodeName}, will try to kill it`,
    );
    await eventually(async () => {
      const now = await livePods('agent');
      return now.length === 3 && !now.some((p) => p.metadata!.uid === victim!.metadata!.uid)
        ? true
        : undefined;
    });
  });

  it('follows nodeSelector and taints: a NoSchedule taint keeps new pods off, a NoExecute one evicts', async () => {
    const [first, second] = (await nodes().list('')).items.map((n) => n.metadata!.name!).sort();
    await nodes().patch('', first!, 'merge', { metadata: { labels: { role: 'edge' } } });
    await daemonSets().create(
      daemonSet('edge', {
        template: {
          metadata: { labels: { app: 'edge' } },
          spec: { nodeSelector: { role: 'edge' }, containers: [{ name: 'a', image: 'busybox:1.36' }] },
        },
      }),
    );
    await statusBecomes(
      'edge',
      (d) => d.status?.desiredNumberScheduled === 1 && d.status.numberAvailable === 1,
    );
    expect((await livePods('edge')).map((p) => p.spec!.nodeName)).toEqual([first]);
    // The label goes: the pod is misscheduled and deleted.
    await nodes().patch('', first!, 'merge', { metadata: { labels: { role: null } } });
    await statusBecomes(
      'edge',
      (d) => d.status?.desiredNumberScheduled === 0 && d.status.currentNumberScheduled === 0,
    );
    await eventually(async () => ((await livePods('edge')).length === 0 ? true : undefined));

    await nodes().patch('', second!, 'merge', {
      spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] },
    });
    await statusBecomes(
      'agent',
      (d) => d.status?.desiredNumberScheduled === 2 && d.status.currentNumberScheduled === 2,
    );
    await eventually(async () =>
      (await livePods('agent')).every((p) => p.spec!.nodeName !== second) ? true : undefined,
    );
    await nodes().patch('', second!, 'merge', {
      spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] },
    });
    await statusBecomes(
      'agent',
      (d) => d.status?.desiredNumberScheduled === 2 && d.status.numberAvailable === 2,
    );
    await nodes().patch('', second!, 'merge', { spec: { taints: null } });
    await statusBecomes(
      'agent',
      (d) => d.status?.desiredNumberScheduled === 3 && d.status.numberAvailable === 3,
    );
  }, 60_000);

  it('rolls a new template out with RollingUpdate and keeps the old revision', async () => {
    const ds = await daemonSets().get(NS, 'agent');
    await daemonSets().patch(NS, 'agent', 'merge', {
      spec: { template: { spec: { containers: [{ name: 'agent', image: 'busybox:1.37' }] } } },
    });
    await statusBecomes(
      'agent',
      (d) =>
        d.status?.observedGeneration === (ds.metadata!.generation ?? 0) + 1 &&
        d.status.updatedNumberScheduled === 3 &&
        d.status.numberAvailable === 3,
      30_000,
    );
    const running = await eventually(async () => {
      const now = await livePods('agent');
      return now.length === 3 && now.every((p) => p.spec!.containers[0]!.image === 'busybox:1.37')
        ? now
        : undefined;
    });
    expect(running).toHaveLength(3);
    const revisions = (await cp.admin.resource<ControllerRevision>(CONTROLLER_REVISIONS).list(NS)).items
      .filter((r) => r.metadata?.ownerReferences?.[0]?.uid === ds.metadata!.uid)
      .map((r) => r.revision)
      .sort();
    expect(revisions).toEqual([1, 2]);
  }, 60_000);

  it('leaves old pods alone with OnDelete until they are deleted', async () => {
    await daemonSets().patch(NS, 'agent', 'merge', {
      spec: {
        updateStrategy: { type: 'OnDelete', rollingUpdate: null },
        template: { spec: { containers: [{ name: 'agent', image: 'busybox:1.38' }] } },
      },
    });
    const ds = await statusBecomes('agent', (d) => d.status?.observedGeneration === d.metadata!.generation);
    expect(ds.status!.updatedNumberScheduled).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await livePods('agent')).every((p) => p.spec!.containers[0]!.image === 'busybox:1.37')).toBe(
      true,
    );
    const [victim] = await livePods('agent');
    await pods().delete(NS, victim!.metadata!.name!);
    await statusBecomes(
      'agent',
      (d) => d.status?.updatedNumberScheduled === 1 && d.status.numberAvailable === 3,
    );
  }, 60_000);

  it('takes its pods and history back when deleted with orphan cascade and created again', async () => {
    const old = await daemonSets().get(NS, 'agent');
    const revisions = () => cp.admin.resource<ControllerRevision>(CONTROLLER_REVISIONS);
    const before = (await revisions().list(NS)).items.filter(
      (r) => r.metadata?.ownerReferences?.[0]?.uid === old.metadata!.uid,
    );
    const podNames = (await livePods('agent')).map((p) => p.metadata!.name).sort();
    await daemonSets().delete(NS, 'agent', { propagationPolicy: 'Orphan' });
    await eventually(async () =>
      (await daemonSets()
        .get(NS, 'agent')
        .catch(() => undefined))
        ? undefined
        : true,
    );
    await daemonSets().create({
      metadata: { name: 'agent', namespace: NS },
      spec: { ...old.spec!, updateStrategy: { type: 'OnDelete' } },
    });
    const fresh = await statusBecomes(
      'agent',
      (d) => d.status?.numberAvailable === 3 && d.metadata!.uid !== old.metadata!.uid,
    );
    const adopted = await eventually(async () => {
      const now = (await revisions().list(NS)).items.filter(
        (r) => r.metadata?.ownerReferences?.[0]?.uid === fresh.metadata!.uid,
      );
      return now.length >= before.length ? now : undefined;
    });
    expect(adopted.map((r) => r.metadata!.name).sort()).toEqual(before.map((r) => r.metadata!.name).sort());
    // The same pods, now controlled by the new DaemonSet.
    const pods3 = await livePods('agent');
    expect(pods3.map((p) => p.metadata!.name).sort()).toEqual(podNames);
    for (const pod of pods3) expect(pod.metadata!.ownerReferences![0]!.uid).toBe(fresh.metadata!.uid);
  }, 60_000);
});
