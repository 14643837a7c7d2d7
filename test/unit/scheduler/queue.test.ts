import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  ActionType,
  EVENT_ASSIGNED_POD_DELETE,
  EVENT_NODE_ADD,
} from '../../../src/scheduler/framework/events.js';
import type { ClusterEventWithHint } from '../../../src/scheduler/framework/interfaces.js';
import { PluginNames } from '../../../src/scheduler/plugins/names.js';
import { priorityLess } from '../../../src/scheduler/plugins/priority-sort.js';
import { SchedulingGates } from '../../../src/scheduler/plugins/scheduling-gates.js';
import { SchedulingQueue } from '../../../src/scheduler/queue/scheduling-queue.js';
import { node, pod } from './fixtures.js';

function queue(registrations: Record<string, ClusterEventWithHint[]> = {}) {
  const clock = { now: 1_000_000 };
  const q = new SchedulingQueue({
    less: priorityLess,
    now: () => clock.now,
    profiles: new Map([
      [
        'default-scheduler',
        {
          preEnqueuePlugins: [new SchedulingGates()],
          eventRegistrations: new Map(Object.entries(registrations)),
        },
      ],
    ]),
  });
  return { q, clock };
}

/** Pops the pod and hands it back as rejected by `plugins`. */
function failWith(q: SchedulingQueue, plugins: string[]) {
  const info = q.pop()!;
  info.unschedulablePlugins = new Set(plugins);
  return { info, where: q.addUnschedulableIfNotPresent(info) };
}

describe('SchedulingQueue', () => {
  it('pops by priority, then by time of arrival', () => {
    const { q, clock } = queue();
    q.add(pod('low', { priority: 1 }));
    clock.now += 1;
    q.add(pod('high-late', { priority: 10 }));
    clock.now += 1;
    q.add(pod('high-later', { priority: 10 }));
    clock.now -= 10;
    q.add(pod('mid', { priority: 5 }));
    expect([q.pop(), q.pop(), q.pop(), q.pop()].map((info) => info?.pod.metadata?.name)).toEqual([
      'high-late',
      'high-later',
      'mid',
      'low',
    ]);
    expect(q.pop()).toBeUndefined();
  });

  it('backs off 1 s, doubling per attempt, at most 10 s', () => {
    const { q } = queue();
    q.add(pod('p'));
    const info = q.pop()!;
    const durations = [1, 2, 3, 4, 5, 6].map((attempts) => {
      info.attempts = attempts;
      return q.backoffDuration(info);
    });
    expect(durations).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
  });

  it('keeps rejected pods in unschedulablePods until an event their plugins registered', () => {
    const { q } = queue({
      [PluginNames.NodeResourcesFit]: [{ event: { resource: 'Pod', actionType: ActionType.Delete } }],
    });
    const p = pod('p');
    q.add(p);
    expect(failWith(q, [PluginNames.NodeResourcesFit]).where).toBe('unschedulablePods');
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n'));
    expect(q.whereIs(p)).toBe('unschedulablePods');
    q.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, pod('gone', { nodeName: 'n' }), undefined);
    // Still within its 1 s backoff: it goes to backoffQ, and may be popped early while activeQ is empty.
    expect(q.whereIs(p)).toBe('backoffQ');
    expect(q.pop()?.pod.metadata?.name).toBe('p');
  });

  it('asks the queueing hint', () => {
    const { q } = queue({
      [PluginNames.NodeAffinity]: [
        {
          event: { resource: 'Node', actionType: ActionType.Add },
          hint: (_pod, _old, newObj) =>
            (newObj as Node).metadata?.labels?.zone === 'b' ? 'Queue' : 'QueueSkip',
        },
      ],
    });
    const p = pod('p');
    q.add(p);
    failWith(q, [PluginNames.NodeAffinity]);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n1', { labels: { zone: 'a' } }));
    expect(q.whereIs(p)).toBe('unschedulablePods');
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n2', { labels: { zone: 'b' } }));
    expect(q.whereIs(p)).toBe('backoffQ');
  });

  it('requeues at once when a helpful event arrived while the pod was being scheduled', () => {
    const { q, clock } = queue({
      [PluginNames.NodeResourcesFit]: [{ event: { resource: 'Node', actionType: ActionType.Add } }],
    });
    const p = pod('p');
    q.add(p);
    const info = q.pop()!;
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n'));
    info.unschedulablePlugins = new Set([PluginNames.NodeResourcesFit]);
    clock.now += 5_000;
    expect(q.addUnschedulableIfNotPresent(info)).toBe('backoffQ');
  });

  it('moves backoff pods to activeQ once their backoff ends', () => {
    const { q, clock } = queue({
      [PluginNames.NodeResourcesFit]: [{ event: { resource: 'Node', actionType: ActionType.Add } }],
    });
    const p = pod('p');
    q.add(p);
    failWith(q, [PluginNames.NodeResourcesFit]);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n'));
    expect(q.whereIs(p)).toBe('backoffQ');
    clock.now += 999;
    q.flushBackoffQCompleted();
    expect(q.whereIs(p)).toBe('backoffQ');
    clock.now += 1;
    q.flushBackoffQCompleted();
    expect(q.whereIs(p)).toBe('activeQ');
  });

  it('pods that failed with an error go to backoff and are not popped early', () => {
    const { q, clock } = queue();
    const p = pod('p');
    q.add(p);
    expect(failWith(q, []).where).toBe('backoffQ');
    expect(q.pop()).toBeUndefined();
    clock.now += 1_000;
    q.flushBackoffQCompleted();
    expect(q.pop()?.pod.metadata?.name).toBe('p');
  });

  it('flushes pods that stayed unschedulable longer than 5 minutes', () => {
    const { q, clock } = queue();
    const p = pod('p');
    q.add(p);
    failWith(q, [PluginNames.NodeResourcesFit]);
    clock.now += 5 * 60_000;
    q.flushUnschedulablePodsLeftover();
    expect(q.whereIs(p)).toBe('unschedulablePods');
    clock.now += 1;
    q.flushUnschedulablePodsLeftover();
    expect(q.whereIs(p)).toBe('activeQ');
  });

  it('keeps gated pods out until their gates are removed', () => {
    const { q } = queue({
      [PluginNames.SchedulingGates]: new SchedulingGates().eventsToRegister(),
    });
    const gated = pod('gated', { spec: { schedulingGates: [{ name: 'wait' }] } });
    q.add(gated);
    expect(q.whereIs(gated)).toBe('unschedulablePods');
    expect(q.get(gated)?.gatingPlugin).toBe('SchedulingGates');
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node('n'));
    expect(q.whereIs(gated)).toBe('unschedulablePods');
    const open: Pod = { ...gated, spec: { ...gated.spec!, schedulingGates: [] } };
    q.update(gated, open);
    expect(q.whereIs(open)).toBe('activeQ');
  });

  it('updates a queued pod in place and deletes it', () => {
    const { q } = queue();
    const p = pod('p', { priority: 1 });
    q.add(p);
    q.add(pod('other', { priority: 5 }));
    const raised: Pod = { ...p, spec: { ...p.spec!, priority: 10 } };
    q.update(p, raised);
    expect(q.pop()?.pod.metadata?.name).toBe('p');
    q.delete(pod('other', { uid: q.pendingPods().activeQ[0]!.metadata!.uid }));
    expect(q.pop()).toBeUndefined();
  });

  it('tracks nominated pods from status.nominatedNodeName', () => {
    const { q } = queue();
    const p = pod('p');
    p.status = { nominatedNodeName: 'n1' };
    q.add(p);
    expect(q.nominator.nominatedPodsForNode('n1').map((info) => info.name)).toEqual(['p']);
    q.delete(p);
    expect(q.nominator.hasNominatedPods()).toBe(false);
  });
});
