// Issue 8's acceptance for priority and preemption, end to end with real kubectl on
// `tkube up --nodes 0 --fake-nodes 3` (8 cpu per node): a high-priority pod that fits nowhere
// evicts a lower-priority pod (nominatedNodeName, the victim deleted with a Preempted event, the
// preemptor bound there), victims covered by a PodDisruptionBudget are taken only when no other
// node will do, and preemptionPolicy Never keeps a pod waiting.
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
  cluster = await startTestCluster('sched-preemption', { fakeNodes: 3 });
  const priorityClass = (name: string, value: number, preemptionPolicy?: string) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    value,
    ...(preemptionPolicy && { preemptionPolicy }),
  });
  await create(
    cluster,
    'default',
    priorityClass('low', 100),
    priorityClass('high', 1000),
    priorityClass('high-never', 1000, 'Never'),
  );
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

/** Six of a node's eight cpus, at a priority, pinned to a node when `node` is given. */
function sixCpus(
  name: string,
  priorityClassName: string,
  node?: string,
  labels?: Record<string, string>,
): Pod {
  return pod(name, {
    labels,
    requests: { cpu: '6' },
    spec: {
      priorityClassName,
      ...(node && { nodeSelector: { 'kubernetes.io/hostname': node } }),
    },
  });
}

async function gone(namespace: string, name: string): Promise<boolean> {
  const result = await cluster.kubectl(['get', 'pod', name, '-n', namespace]);
  return result.exitCode !== 0 && result.stderr.includes('NotFound');
}

/** Waits until the pod is bound; checks it was nominated to that node first. */
async function boundAsNominated(namespace: string, name: string): Promise<string> {
  const node = await boundNode(cluster, namespace, name);
  const bound = await getPod(cluster, namespace, name);
  expect(bound.status?.nominatedNodeName).toBe(node);
  expect(await eventMessages(cluster, namespace, name, 'FailedScheduling')).toContain(
    '0/3 nodes are available: 3 Insufficient cpu.',
  );
  return node;
}

describe('priority and preemption', () => {
  it('evicts a lower-priority pod for a higher-priority one and binds it there', async () => {
    await ok(cluster, ['create', 'namespace', 'preempt']);
    await create(
      cluster,
      'preempt',
      ...FAKE_NODES.map((node, index) => sixCpus(`low-${index}`, 'low', node)),
    );
    for (let index = 0; index < FAKE_NODES.length; index++) {
      expect(await boundNode(cluster, 'preempt', `low-${index}`)).toBe(FAKE_NODES[index]);
    }
    const low = await getPod(cluster, 'preempt', 'low-0');
    expect(low.spec?.priority).toBe(100);

    await create(cluster, 'preempt', sixCpus('vip', 'high'));
    const node = await boundAsNominated('preempt', 'vip');
    const victim = `low-${FAKE_NODES.indexOf(node as (typeof FAKE_NODES)[number])}`;
    expect(await gone('preempt', victim)).toBe(true);
    const survivors = [0, 1, 2].map((index) => `low-${index}`).filter((name) => name !== victim);
    for (const name of survivors) expect(await gone('preempt', name)).toBe(false);
    const vip = await getPod(cluster, 'preempt', 'vip');
    expect(await eventMessages(cluster, 'preempt', victim, 'Preempted')).toEqual([
      `Preempted by pod ${vip.metadata?.uid} on node ${node}`,
    ]);
    await ok(cluster, ['delete', 'pods', '--all', '-n', 'preempt', '--wait=true']);
  });

  it('takes victims guarded by a PodDisruptionBudget last', async () => {
    await ok(cluster, ['create', 'namespace', 'guarded']);
    const guarded = { app: 'guarded' };
    await create(
      cluster,
      'guarded',
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'guard' },
        spec: { maxUnavailable: 0, selector: { matchLabels: guarded } },
      },
      sixCpus('free-2', 'low', 'fake-node-2'),
    );
    await boundNode(cluster, 'guarded', 'free-2');
    // The guarded pods start a second later: without the PDB, the tie-break (victims that started
    // last) would take one of them rather than free-2.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await create(
      cluster,
      'guarded',
      sixCpus('guarded-0', 'low', 'fake-node-0', guarded),
      sixCpus('guarded-1', 'low', 'fake-node-1', guarded),
    );
    for (const name of ['guarded-0', 'guarded-1']) await boundNode(cluster, 'guarded', name);
    const running = async (name: string) =>
      (await getPod(cluster, 'guarded', name)).status?.startTime !== undefined ? true : undefined;
    for (const name of ['free-2', 'guarded-0', 'guarded-1'])
      await until(`${name} to start`, () => running(name));

    // Every node has one victim of the same priority: the one without a PDB is chosen.
    await create(cluster, 'guarded', sixCpus('vip-0', 'high'));
    expect(await boundAsNominated('guarded', 'vip-0')).toBe('fake-node-2');
    expect(await gone('guarded', 'free-2')).toBe(true);
    expect(await gone('guarded', 'guarded-0')).toBe(false);
    expect(await gone('guarded', 'guarded-1')).toBe(false);

    // Now only guarded pods are left to take: the budget is broken rather than the pod left out.
    await create(cluster, 'guarded', sixCpus('vip-1', 'high'));
    const node = await boundAsNominated('guarded', 'vip-1');
    expect(['fake-node-0', 'fake-node-1']).toContain(node);
    const evicted = node === 'fake-node-0' ? 'guarded-0' : 'guarded-1';
    await until(`${evicted} to be deleted`, async () =>
      (await gone('guarded', evicted)) ? true : undefined,
    );
  });

  it('leaves a pod with preemptionPolicy Never waiting, and one of lower priority finds no victims', async () => {
    await ok(cluster, ['create', 'namespace', 'never']);
    // The pod's preemptionPolicy comes from its PriorityClass (Priority admission).
    await create(cluster, 'never', sixCpus('polite', 'high-never'), sixCpus('humble', 'low'));
    const politeMessage =
      '0/3 nodes are available: 3 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.';
    await expectUnschedulable(cluster, 'never', 'polite', politeMessage);
    // Nothing runs below the low priority class: a pod of that class can preempt nothing.
    const humbleMessage =
      '0/3 nodes are available: 3 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await expectUnschedulable(cluster, 'never', 'humble', humbleMessage);
    const polite = await getPod(cluster, 'never', 'polite');
    expect(polite.spec?.preemptionPolicy).toBe('Never');
    expect(polite.status?.nominatedNodeName).toBeUndefined();
  });

  it('schedules the higher-priority pod first when room frees up, though it came later', async () => {
    // The earlier tests' pods would compete for the room.
    await ok(cluster, ['delete', 'namespace', 'preempt', 'guarded', 'never', '--wait=true']);
    await ok(cluster, ['create', 'namespace', 'order']);
    await ok(cluster, ['cordon', ...FAKE_NODES]);
    // The node lifecycle controller follows a cordon with the node.kubernetes.io/unschedulable
    // taint. Were that node update to reach the scheduler after the pods' first attempt, it would
    // retry them and lengthen one's backoff past the wait below, and the pod whose backoff ran out
    // first would take the room regardless of priority.
    await until('the unschedulable taint on every cordoned node', async () => {
      const taints = await ok(cluster, [
        'get',
        'nodes',
        ...FAKE_NODES,
        '-o',
        'jsonpath={range .items[*]}{.spec.taints[*].key}{"\\n"}{end}',
      ]);
      const tainted = taints.split('\n').filter((keys) => keys.includes('node.kubernetes.io/unschedulable'));
      return tainted.length === FAKE_NODES.length ? true : undefined;
    });
    try {
      await create(cluster, 'order', sixCpus('early-low', 'low'));
      await create(cluster, 'order', sixCpus('late-high', 'high-never'));
      const message =
        '0/3 nodes are available: 3 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
      await expectUnschedulable(cluster, 'order', 'early-low', message);
      await expectUnschedulable(
        cluster,
        'order',
        'late-high',
        '0/3 nodes are available: 3 node(s) were unschedulable. preemption: not eligible due to preemptionPolicy=Never.',
      );
      // Past both pods' first backoff (1 s), so the node update moves both to the active queue at once.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // Room for one of them: the active queue pops by priority, not by arrival.
      await ok(cluster, ['uncordon', 'fake-node-1']);
      expect(await boundNode(cluster, 'order', 'late-high')).toBe('fake-node-1');
      const lowMessage =
        '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, ' +
        '2 Preemption is not helpful for scheduling.';
      await expectUnschedulable(cluster, 'order', 'early-low', lowMessage);
    } finally {
      await ok(cluster, ['uncordon', ...FAKE_NODES]);
    }
    expect(['fake-node-0', 'fake-node-2']).toContain(await boundNode(cluster, 'order', 'early-low'));
  }, 90_000);
});
