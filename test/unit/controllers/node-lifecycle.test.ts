// The node lifecycle, taint eviction and pod GC controllers through the whole control plane, with
// short grace periods and kubelets simulated by renewing node Leases and patching statuses: a node
// whose lease stops goes Unknown, is tainted unreachable, its pods turn not Ready and are evicted
// when their toleration runs out, and it is untainted when it comes back; NoExecute taints evict
// pods that do not tolerate them at once; conditions and spec.unschedulable become NoSchedule
// taints; pods of a deleted node are garbage collected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeLease } from '../../../src/agent/node/lease.js';
import type {
  Event,
  Node,
  NodeCondition,
  Pod,
  ServiceAccount,
  Taint,
  Toleration,
} from '../../../src/api/types/core-v1.generated.js';
import { EVENTS, NODES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import { RateLimitedTimedQueue } from '../../../src/controllers/nodelifecycle/rate-limited-timed-queue.js';
import { computeZoneState, zoneKeyOf } from '../../../src/controllers/nodelifecycle/zones.js';
import {
  matchingTolerations,
  minTolerationTimeMs,
} from '../../../src/controllers/tainteviction/tolerations.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { markPodRunning, metaNow } from '../../support/simulated-kubelet.js';

describe('node lifecycle helpers', () => {
  it('computes zone states and keys', () => {
    const ready: NodeCondition = { type: 'Ready', status: 'True' };
    const down: NodeCondition = { type: 'Ready', status: 'Unknown' };
    expect(computeZoneState([down, undefined], 0.55).state).toBe('FullDisruption');
    expect(computeZoneState([ready, down], 0.55).state).toBe('Normal');
    expect(computeZoneState([ready, down, down, down], 0.55)).toEqual({
      notReady: 3,
      state: 'PartialDisruption',
    });
    expect(zoneKeyOf({ metadata: { labels: { 'topology.kubernetes.io/zone': 'a' } } })).toBe(':\x00:a');
    expect(zoneKeyOf({ metadata: {} })).toBe('');
  });

  it('processes each queued node once, at the rate allowed', async () => {
    const queue = new RateLimitedTimedQueue(1000);
    expect(queue.add('n1', 'u1')).toBe(true);
    expect(queue.add('n1', 'u1')).toBe(false);
    const seen: string[] = [];
    await queue.try(async (name) => {
      seen.push(name);
      return [true, 0];
    });
    await queue.try(async (name) => {
      seen.push(name);
      return [true, 0];
    });
    expect(seen).toEqual(['n1']);
    // Known until removed, even once processed.
    expect(queue.add('n1', 'u1')).toBe(false);
    expect(queue.remove('n1')).toBe(true);
    expect(queue.add('n1', 'u1')).toBe(true);
    queue.swapLimiter(0);
    await queue.try(async (name) => {
      seen.push(name);
      return [true, 0];
    });
    expect(seen).toEqual(['n1']);
  });

  it('finds the tolerations that keep a pod and for how long', () => {
    const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
    const custom: Taint = { key: 'example.com/drain', value: 'yes', effect: 'NoExecute' };
    const tolerations: Toleration[] = [
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 30,
      },
      { key: 'example.com/drain', operator: 'Equal', value: 'yes' },
    ];
    const both = matchingTolerations([unreachable, custom], tolerations);
    expect(both.allTolerated).toBe(true);
    expect(minTolerationTimeMs(both.used)).toBe(30_000);
    expect(minTolerationTimeMs(matchingTolerations([custom], tolerations).used)).toBe(-1);
    expect(matchingTolerations([{ ...custom, value: 'no' }], tolerations).allTolerated).toBe(false);
    expect(minTolerationTimeMs([{ operator: 'Exists', tolerationSeconds: -5 }])).toBe(0);
  });
});

describe('node lifecycle, taint eviction and pod GC controllers', () => {
  let cp: InProcessControlPlane;
  const namespace = 'default';
  /** Nodes whose simulated kubelet renews its lease. */
  const alive = new Set<string>();
  const leases = new Map<string, NodeLease>();
  let heartbeat: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    cp = await startInProcessControlPlane({
      controllerSettings: {
        nodeMonitorPeriodMs: 200,
        nodeMonitorGracePeriodMs: 1500,
        nodeStartupGracePeriodMs: 3000,
        nodeEvictionRate: 100,
        podGcPeriodMs: 200,
        podGcQuarantineMs: 400,
      },
    });
    await eventually(() =>
      cp.admin
        .resource<ServiceAccount>(SERVICE_ACCOUNTS)
        .get(namespace, 'default')
        .catch(() => undefined),
    );
    heartbeat = setInterval(() => {
      for (const name of alive)
        void leases
          .get(name)
          ?.renew()
          .catch(() => undefined);
    }, 250);
    // A node that stays healthy throughout: with every node down, the controller stops evicting.
    await startNode('nl-healthy');
  }, 30_000);
  afterAll(async () => {
    clearInterval(heartbeat);
    await cp?.stop();
  });

  const nodes = () => cp.admin.resource<Node>(NODES);
  const pods = () => cp.admin.resource<Pod>(PODS);

  async function postStatus(name: string, ready: 'True' | 'False'): Promise<void> {
    const time = metaNow();
    await nodes().patch(
      '',
      name,
      'strategic',
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: ready,
              reason: 'KubeletReady',
              lastHeartbeatTime: time,
              lastTransitionTime: time,
            },
            { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: time, lastTransitionTime: time },
          ],
        },
      },
      { subresource: 'status' },
    );
  }

  /** Registers a node as its kubelet would: the Node, a Ready status, and a lease renewed from then on. */
  async function startNode(name: string, labels: Record<string, string> = {}): Promise<Node> {
    const node = await nodes().create({ metadata: { name, labels } });
    await postStatus(name, 'True');
    const lease = new NodeLease(cp.admin, () => node, name);
    leases.set(name, lease);
    await lease.renew();
    alive.add(name);
    return node;
  }

  async function runPod(name: string, nodeName: string, tolerations: Toleration[] = []): Promise<Pod> {
    await pods().create({
      metadata: { name, namespace },
      spec: { nodeName, tolerations, containers: [{ name: 'app', image: 'busybox' }] },
    });
    return markPodRunning(cp.admin, namespace, name, { ip: '10.244.9.9', ready: true });
  }

  const taintsOf = async (name: string) =>
    ((await nodes().get('', name)).spec?.taints ?? []).map((taint) => `${taint.key}:${taint.effect}`).sort();
  const getPod = (name: string) =>
    pods()
      .get(namespace, name)
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
  const events = async (reason: string) =>
    (await cp.admin.resource<Event>(EVENTS).list('')).items.filter((event) => event.reason === reason);

  it('marks a silent node Unknown, taints it, evicts its pods after their toleration, and untaints it when it is back', async () => {
    await startNode('nl-failing');
    const unreachableFor = (seconds?: number): Toleration => ({
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
    });
    await runPod('short-toleration', 'nl-failing', [unreachableFor(2)]);
    await runPod('forever-toleration', 'nl-failing', [unreachableFor()]);
    const defaulted = await runPod('default-toleration', 'nl-failing');
    expect(defaulted.spec?.tolerations).toContainEqual({ ...unreachableFor(300) });

    alive.delete('nl-failing');
    const node = await eventually(async () => {
      const found = await nodes().get('', 'nl-failing');
      const ready = found.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'Unknown' ? found : undefined;
    }, 8000);
    const conditions = new Map(node.status!.conditions!.map((c) => [c.type, c]));
    expect(conditions.get('Ready')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    expect(conditions.get('MemoryPressure')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
    });
    expect(conditions.get('DiskPressure')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeStatusNeverUpdated',
      message: 'Kubelet never posted node status.',
    });

    await eventually(async () => {
      const taints = await taintsOf('nl-failing');
      return taints.includes('node.kubernetes.io/unreachable:NoExecute') &&
        taints.includes('node.kubernetes.io/unreachable:NoSchedule')
        ? taints
        : undefined;
    });
    const taintedAt = Date.now();
    const unreachable = (await nodes().get('', 'nl-failing')).spec!.taints!.find(
      (t) => t.effect === 'NoExecute',
    )!;
    expect(unreachable.timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const forever = await getPod('forever-toleration');
    expect(forever?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');

    const evicted = await eventually(async () => {
      const pod = await getPod('short-toleration');
      return pod?.metadata?.deletionTimestamp ? pod : undefined;
    }, 8000);
    // Not before its 2 s toleration ran out (give or take the polling).
    expect(Date.now() - taintedAt).toBeGreaterThan(1500);
    expect(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'DeletionByTaintManager',
      message: 'Taint manager: deleting due to NoExecute taint',
    });
    const marking = await eventually(async () => {
      const found = await events('TaintManagerEviction');
      return found.find((e) => e.message === 'Marking for deletion Pod default/short-toleration');
    });
    expect(marking.source?.component).toBe('taint-eviction-controller');
    expect((await getPod('forever-toleration'))?.metadata?.deletionTimestamp).toBeUndefined();
    expect((await getPod('default-toleration'))?.metadata?.deletionTimestamp).toBeUndefined();
    expect((await events('NodeNotReady')).map((e) => e.message)).toContain(
      'Node nl-failing status is now: NodeNotReady',
    );

    await postStatus('nl-failing', 'True');
    alive.add('nl-failing');
    await eventually(async () => ((await taintsOf('nl-failing')).length === 0 ? true : undefined), 8000);
  }, 30_000);

  it('evicts pods not tolerating a NoExecute taint at once, and cancels scheduled evictions when it goes', async () => {
    await startNode('nl-drained');
    await runPod('intolerant', 'nl-drained');
    await runPod('tolerant', 'nl-drained', [
      { key: 'example.com/drain', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
    const node = await nodes().get('', 'nl-drained');
    await nodes().patch('', 'nl-drained', 'merge', {
      metadata: { resourceVersion: node.metadata?.resourceVersion },
      spec: { taints: [{ key: 'example.com/drain', effect: 'NoExecute' }] },
    });
    await eventually(async () =>
      (await getPod('intolerant'))?.metadata?.deletionTimestamp ? true : undefined,
    );
    expect((await getPod('tolerant'))?.metadata?.deletionTimestamp).toBeUndefined();
    await nodes().patch('', 'nl-drained', 'merge', { spec: { taints: null } });
    const cancelled = await eventually(async () =>
      (await events('TaintManagerEviction')).find(
        (e) => e.message === 'Cancelling deletion of Pod default/tolerant',
      ),
    );
    expect(cancelled.involvedObject).toMatchObject({ kind: 'Pod', namespace, name: 'tolerant' });
  });

  it('turns conditions and spec.unschedulable into NoSchedule taints, and reconciles beta labels', async () => {
    const created = await startNode('nl-conditions', { 'kubernetes.io/os': 'linux' });
    // TaintNodesByCondition admission: new nodes start not ready for scheduling.
    expect(created.spec?.taints).toEqual([{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    await postStatus('nl-conditions', 'False');
    await eventually(async () => {
      const taints = await taintsOf('nl-conditions');
      return taints.includes('node.kubernetes.io/not-ready:NoSchedule') ? taints : undefined;
    });
    await nodes().patch('', 'nl-conditions', 'merge', { spec: { unschedulable: true } });
    await eventually(async () => {
      const taints = await taintsOf('nl-conditions');
      return taints.includes('node.kubernetes.io/unschedulable:NoSchedule') ? taints : undefined;
    });
    await nodes().patch('', 'nl-conditions', 'merge', { spec: { unschedulable: null } });
    await postStatus('nl-conditions', 'True');
    await eventually(async () => {
      const taints = await taintsOf('nl-conditions');
      // The not-ready NoExecute taint may have come and gone meanwhile; NoSchedule ones must go.
      return taints.every((t) => !t.endsWith(':NoSchedule')) ? taints : undefined;
    });
    expect((await nodes().get('', 'nl-conditions')).metadata?.labels?.['beta.kubernetes.io/os']).toBe(
      'linux',
    );
  });

  it('garbage collects the pods of a deleted node, marking them Failed first', async () => {
    await startNode('nl-gone');
    const started = await runPod('orphan', 'nl-gone');
    const abort = new AbortController();
    const seen: Pod[] = [];
    const watching = (async () => {
      const stream = pods().watch(namespace, {
        fieldSelector: 'metadata.name=orphan',
        resourceVersion: started.metadata?.resourceVersion,
        signal: abort.signal,
      });
      for await (const event of stream) {
        if (event.type === 'ERROR' || event.type === 'BOOKMARK') continue;
        seen.push(event.object);
        if (event.type === 'DELETED') return;
      }
    })();
    alive.delete('nl-gone');
    await nodes().delete('', 'nl-gone');
    await eventually(async () => ((await getPod('orphan')) === undefined ? true : undefined), 8000);
    await Promise.race([watching, new Promise((resolve) => setTimeout(resolve, 2000))]);
    abort.abort();
    const failed = seen.find((pod) => pod.status?.phase === 'Failed');
    expect(failed?.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'DeletionByPodGC',
      message: 'PodGC: node no longer exists',
    });
  });

  it('deletes terminating pods that were never scheduled', async () => {
    await pods().create({
      metadata: { name: 'unscheduled', namespace, finalizers: ['example.com/hold'] },
      spec: { containers: [{ name: 'app', image: 'busybox' }] },
    });
    await pods().delete(namespace, 'unscheduled');
    const marked = await eventually(async () => {
      const pod = await getPod('unscheduled');
      return pod?.status?.phase === 'Failed' ? pod : undefined;
    });
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    await pods().patch(namespace, 'unscheduled', 'merge', { metadata: { finalizers: null } });
    await eventually(async () => ((await getPod('unscheduled')) === undefined ? true : undefined));
  });
});
