// The FailedScheduling / PodScheduled=False text, exactly as kube-scheduler 1.33 writes it.
import { describe, expect, it } from 'vitest';
import { truncateMessage } from '../../../src/scheduler/failure.js';
import { fitErrorMessage, newDiagnosis } from '../../../src/scheduler/framework/fit-error.js';
import { NodeToStatus } from '../../../src/scheduler/framework/node-to-status.js';
import { Status } from '../../../src/scheduler/framework/status.js';
import { node, pod } from './fixtures.js';
import { harness } from './harness.js';

const controlPlaneTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('FailedScheduling messages', () => {
  it('taint + insufficient cpu, preemption finding no victims', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('control-plane', { cpu: '4', taints: [controlPlaneTaint] }));
    h.scheduler.onNodeAdd(node('worker-1', { cpu: '1' }));
    h.scheduler.onNodeAdd(node('worker-2', { cpu: '1' }));
    h.add(pod('big', { cpu: '2' }));
    await h.drain();
    const failure = h.lastFailure('big')!;
    const message =
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    expect(failure.event).toEqual({
      type: 'Warning',
      reason: 'FailedScheduling',
      action: 'Scheduling',
      note: message,
    });
    expect(failure.condition).toMatchObject({
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
    });
    expect(failure.nominatedNodeName).toBeUndefined();
  });

  it('every node unresolvable: preemption is not helpful anywhere', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('control-plane', { taints: [controlPlaneTaint] }));
    h.scheduler.onNodeAdd(node('worker-1', { labels: { zone: 'a' } }));
    h.scheduler.onNodeAdd(node('worker-2', { labels: { zone: 'a' }, unschedulable: true }));
    h.add(pod('picky', { spec: { nodeSelector: { zone: 'b' } } }));
    await h.drain();
    expect(h.lastFailure('picky')!.condition.message).toBe(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint " +
        '{node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('preemption that would not help even without the lower-priority pods reports the filter reason', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '2' }));
    h.add(pod('low', { cpu: '1', priority: 1 }));
    await h.drain();
    h.add(pod('huge', { cpu: '3', priority: 100 }));
    await h.drain();
    expect(h.lastFailure('huge')!.condition.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
  });

  it('preemptionPolicy Never', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('n1', { cpu: '1' }));
    h.add(pod('polite', { cpu: '2', spec: { preemptionPolicy: 'Never' } }));
    await h.drain();
    expect(h.lastFailure('polite')!.condition.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
    );
  });

  it('a PreFilter rejection replaces the per-node reasons', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('a'));
    h.scheduler.onNodeAdd(node('b'));
    const conflicting = pod('p', {
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchFields: [
                    { key: 'metadata.name', operator: 'In', values: ['a'] },
                    { key: 'metadata.name', operator: 'In', values: ['b'] },
                  ],
                },
              ],
            },
          },
        },
      },
    });
    h.add(conflicting);
    await h.drain();
    expect(h.lastFailure('p')!.condition.message).toBe(
      '0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
  });

  it('nodes excluded by a PreFilter node set are reported as not satisfying that plugin', async () => {
    const h = harness();
    h.scheduler.onNodeAdd(node('a', { cpu: '1' }));
    h.scheduler.onNodeAdd(node('b'));
    h.scheduler.onNodeAdd(node('c'));
    const pinned = pod('p', {
      cpu: '2',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }],
            },
          },
        },
      },
    });
    h.add(pinned);
    await h.drain();
    expect(h.lastFailure('p')!.condition.message).toBe(
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. " +
        'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
  });

  it('no nodes at all', async () => {
    const h = harness();
    h.add(pod('p'));
    await h.drain();
    expect(h.lastFailure('p')!.condition).toMatchObject({
      reason: 'Unschedulable',
      message: 'no nodes available to schedule pods',
    });
  });
});

describe('fitErrorMessage', () => {
  it('sorts "<count> <reason>" entries as Go sorts strings (10 before 2)', () => {
    const diagnosis = newDiagnosis();
    for (let index = 0; index < 10; index++)
      diagnosis.nodeToStatus.set(`a${index}`, Status.unschedulable('Insufficient memory'));
    diagnosis.nodeToStatus.set('b0', Status.unschedulable('Insufficient cpu'));
    diagnosis.nodeToStatus.set('b1', Status.unschedulable('Insufficient cpu'));
    expect(fitErrorMessage(12, diagnosis)).toBe(
      '0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu.',
    );
  });

  it('counts every reason of a node and absent nodes with the absent status', () => {
    const diagnosis = newDiagnosis();
    diagnosis.nodeToStatus = new NodeToStatus(
      Status.unresolvable('Preemption is not helpful for scheduling'),
    );
    diagnosis.nodeToStatus.set('a', Status.unschedulable('Insufficient cpu', 'Insufficient memory'));
    expect(fitErrorMessage(3, diagnosis)).toBe(
      '0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 2 Preemption is not helpful for scheduling.',
    );
  });

  it('truncates notes to 1024 bytes with " ..."', () => {
    const long = 'x'.repeat(2000);
    const cut = truncateMessage(long);
    expect(cut.length).toBe(1024);
    expect(cut.endsWith(' ...')).toBe(true);
    expect(truncateMessage('short')).toBe('short');
  });
});
