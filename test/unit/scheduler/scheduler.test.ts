import { describe, expect, it } from 'vitest';
import { node, pod } from './fixtures.js';
import { harness } from './harness.js';

describe('Scheduler', () => {
  it('binds a pod to the node that fits and records the Scheduled event', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('small', { cpu: '1' }));
    h.scheduler.onNodeAdd(node('large', { cpu: '8' }));
    h.add(pod('web', { cpu: '2' }));
    await h.drain();
    expect(h.bindings).toEqual([
      { namespace: 'default', name: 'web', uid: h.pods.get('web')!.metadata!.uid, nodeName: 'large' },
    ]);
    expect(h.events).toContainEqual({
      pod: 'web',
      event: {
        type: 'Normal',
        reason: 'Scheduled',
        action: 'Binding',
        note: 'Successfully assigned default/web to large',
      },
    });
    // Confirmed: the cache holds it as a bound pod, no longer assumed.
    expect(h.scheduler.cache.isAssumedPod(h.pods.get('web')!)).toBe(false);
    expect(h.scheduler.cache.nodeInfo('large')!.requested.milliCPU).toBe(2000);
  });

  it('leaves pods of other schedulers alone', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1'));
    h.add(pod('mine', { spec: { schedulerName: 'default-scheduler' } }));
    h.add(pod('theirs', { spec: { schedulerName: 'my-scheduler' } }));
    h.add(pod('defaulted', { spec: { schedulerName: undefined } }));
    await h.drain();
    expect(h.bindings.map((binding) => binding.name).sort()).toEqual(['defaulted', 'mine']);
    expect(h.failures).toEqual([]);
  });

  it('honours another schedulerName when configured with it', async () => {
    const h = harness({ schedulerName: 'my-scheduler' });
    h.scheduler.onNodeAdd(node('n1'));
    h.add(pod('mine', { spec: { schedulerName: 'my-scheduler' } }));
    h.add(pod('default', {}));
    await h.drain();
    expect(h.bindings.map((binding) => binding.name)).toEqual(['mine']);
  });

  it('counts assumed pods before their binding is confirmed', () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('a', { cpu: '4' }));
    h.scheduler.onNodeAdd(node('b', { cpu: '4' }));
    h.add(pod('first', { cpu: '3' }));
    h.add(pod('second', { cpu: '3' }));
    expect(h.scheduler.scheduleOne()).toBe(true);
    expect(h.scheduler.scheduleOne()).toBe(true);
    const first = h.scheduler.cache.getPod(h.pods.get('first')!)!;
    const second = h.scheduler.cache.getPod(h.pods.get('second')!)!;
    expect(h.scheduler.cache.isAssumedPod(first)).toBe(true);
    expect(first.spec!.nodeName).not.toBe(second.spec!.nodeName);
  });

  it('forgets the assumed pod when binding fails and retries after backoff', async () => {
    let fail = true;
    const h = harness({ failBind: () => (fail ? new Error('pods "web" not found') : undefined) });
    h.scheduler.onNodeAdd(node('n1'));
    h.add(pod('web', { cpu: '1' }));
    await h.drain();
    expect(h.scheduler.cache.getPod(h.pods.get('web')!)).toBeUndefined();
    expect(h.scheduler.cache.nodeInfo('n1')!.requested.milliCPU).toBe(0);
    const failure = h.lastFailure('web')!;
    expect(failure.condition).toMatchObject({
      reason: 'SchedulerError',
      message: 'running Bind plugin "DefaultBinder": pods "web" not found',
    });
    expect(h.scheduler.queue.whereIs(h.pods.get('web')!)).toBe('backoffQ');
    fail = false;
    h.clock.now += 1_000;
    h.scheduler.queue.flushBackoffQCompleted();
    await h.drain();
    expect(h.nodeOf('web')).toBe('n1');
  });

  it('retries an unschedulable pod when a node that fits is added', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('small', { cpu: '1' }));
    h.add(pod('web', { cpu: '2' }));
    await h.drain();
    expect(h.scheduler.queue.whereIs(h.pods.get('web')!)).toBe('unschedulablePods');
    // A node too small does not move it.
    h.scheduler.onNodeAdd(node('also-small', { cpu: '1' }));
    expect(h.scheduler.queue.whereIs(h.pods.get('web')!)).toBe('unschedulablePods');
    h.scheduler.onNodeAdd(node('large', { cpu: '4' }));
    await h.drain();
    expect(h.nodeOf('web')).toBe('large');
  });

  it('retries a pod rejected for cpu when an assigned pod is deleted', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('old', { cpu: '2' }));
    await h.drain();
    h.add(pod('new', { cpu: '2' }));
    await h.drain();
    expect(h.nodeOf('new')).toBeUndefined();
    h.remove('old');
    await h.drain();
    expect(h.nodeOf('new')).toBe('n1');
  });

  it('holds pods with scheduling gates until the gates are removed', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1'));
    const gated = pod('gated', { spec: { schedulingGates: [{ name: 'example.com/wait' }] } });
    h.add(gated);
    await h.drain();
    expect(h.bindings).toEqual([]);
    expect(h.failures).toEqual([]);
    const ungated = {
      ...gated,
      metadata: { ...gated.metadata, resourceVersion: '2' },
      spec: { ...gated.spec!, schedulingGates: [] },
    };
    h.pods.set('gated', ungated);
    h.scheduler.onPodUpdate(gated, ungated);
    await h.drain();
    expect(h.nodeOf('gated')).toBe('n1');
  });

  it('treats succeeded pods as gone', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('job', { cpu: '2' }));
    await h.drain();
    const running = h.pods.get('job')!;
    h.scheduler.onPodUpdate(running, { ...running, status: { phase: 'Succeeded' } });
    expect(h.scheduler.cache.nodeInfo('n1')!.requested.milliCPU).toBe(0);
  });

  it('skips pods being deleted', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1'));
    const leaving = pod('leaving');
    leaving.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
    h.add(leaving);
    await h.drain();
    expect(h.bindings).toEqual([]);
    expect(h.events.map((entry) => entry.event.note)).toContain(
      'skip schedule deleting pod: default/leaving',
    );
  });

  it('spreads equal pods over equal nodes (round-robin start and least-allocated scoring)', async () => {
    const h = harness();
    for (const name of ['a', 'b', 'c']) h.scheduler.onNodeAdd(node(name, { cpu: '4' }));
    for (let index = 0; index < 6; index++) h.add(pod(`p${index}`, { cpu: '1' }));
    await h.drain();
    const perNode = new Map<string, number>();
    for (const binding of h.bindings) perNode.set(binding.nodeName, (perNode.get(binding.nodeName) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2, 2]);
  });
});

describe('Scheduler preemption', () => {
  it('evicts the lower-priority pod, nominates the node, then binds there', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('low', { cpu: '2', priority: 1 }));
    await h.drain();
    h.add(pod('high', { cpu: '2', priority: 1000 }));
    await h.drain();
    expect(h.preempted).toEqual([{ victim: 'low', preemptor: 'high', node: 'n1' }]);
    const failure = h.failures.find((entry) => entry.pod.metadata?.name === 'high')!;
    expect(failure.condition.message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
    expect(failure.nominatedNodeName).toBe('n1');
    expect(h.nodeOf('high')).toBe('n1');
    expect(h.pods.has('low')).toBe(false);
  });

  it('does not preempt pods of equal or higher priority', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('peer', { cpu: '2', priority: 10 }));
    await h.drain();
    h.add(pod('same', { cpu: '2', priority: 10 }));
    await h.drain();
    expect(h.preempted).toEqual([]);
    expect(h.lastFailure('same')!.condition.message).toContain(
      '1 No preemption victims found for incoming pod',
    );
  });

  it('keeps the room of a nominated pod from lower-priority pods while victims terminate', async () => {
    const h = harness({ gracefulVictims: true });
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('low', { cpu: '2', priority: 1 }));
    await h.drain();
    h.add(pod('high', { cpu: '2', priority: 1000 }));
    await h.drain();
    expect(h.preempted).toEqual([{ victim: 'low', preemptor: 'high', node: 'n1' }]);
    expect(h.pods.get('high')!.status!.nominatedNodeName).toBe('n1');
    expect(h.lastFailure('high')!.condition.message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
    // Retried while the victim still terminates (here: the 5-minute flush), it does not preempt again.
    h.clock.now += 5 * 60_000 + 1;
    h.scheduler.queue.flushUnschedulablePodsLeftover();
    await h.drain();
    expect(h.preempted).toHaveLength(1);
    expect(h.lastFailure('high')!.condition.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.',
    );
    // A lower-priority pod may not preempt its way into the promised room.
    h.add(pod('mid', { cpu: '2', priority: 500 }));
    await h.drain();
    expect(h.lastFailure('mid')!.condition.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
    h.remove('low');
    await h.drain();
    expect(h.nodeOf('high')).toBe('n1');
    expect(h.nodeOf('mid')).toBeUndefined();
  });
});

describe('Scheduler with inter-pod constraints', () => {
  const HOST = 'kubernetes.io/hostname';
  const ZONE = 'topology.kubernetes.io/zone';

  it('required anti-affinity: one pod per node, the next waits for a deletion', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('a'));
    h.scheduler.onNodeAdd(node('b'));
    const spread = (name: string) =>
      pod(name, {
        labels: { app: 'web' },
        spec: {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } } },
              ],
            },
          },
        },
      });
    for (const name of ['w1', 'w2', 'w3']) {
      h.add(spread(name));
      h.clock.now += 1; // queue order: first come first served among equal priorities
    }
    await h.drain();
    expect([h.nodeOf('w1'), h.nodeOf('w2')].sort()).toEqual(['a', 'b']);
    expect(h.lastFailure('w3')!.condition.message).toBe(
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. " +
        'preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    );
    const freed = h.nodeOf('w1');
    h.remove('w1');
    await h.drain();
    expect(h.nodeOf('w3')).toBe(freed);
  });

  it('zone topology spread keeps zones within maxSkew as pods arrive', async () => {
    const h = harness();
    // Zone z1 has three nodes, z2 one: least-allocated alone would favour z1.
    for (const [name, zone] of [
      ['a', 'z1'],
      ['b', 'z1'],
      ['c', 'z1'],
      ['d', 'z2'],
    ]) {
      h.scheduler.onNodeAdd(node(name!, { cpu: '16', labels: { [ZONE]: zone! } }));
    }
    for (let index = 0; index < 8; index++) {
      h.add(
        pod(`s${index}`, {
          labels: { app: 'spread' },
          cpu: '100m',
          spec: {
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: ZONE,
                whenUnsatisfiable: 'DoNotSchedule',
                labelSelector: { matchLabels: { app: 'spread' } },
              },
            ],
          },
        }),
      );
    }
    await h.drain();
    const zones = h.bindings.map((binding) => (binding.nodeName === 'd' ? 'z2' : 'z1'));
    expect(zones.filter((zone) => zone === 'z1')).toHaveLength(4);
    expect(zones.filter((zone) => zone === 'z2')).toHaveLength(4);
  });
});
