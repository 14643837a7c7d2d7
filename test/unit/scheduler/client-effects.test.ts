import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { ApiObject, Client, ResourceClient } from '../../../src/client/types.js';
import { clientEffects } from '../../../src/scheduler/client-effects.js';
import { failedSchedulingEvent, podScheduledCondition } from '../../../src/scheduler/failure.js';
import { pod } from './fixtures.js';

interface Call {
  verb: string;
  args: unknown[];
}

function fakeClient(): { client: Client; calls: Call[] } {
  const calls: Call[] = [];
  const record =
    (verb: string) =>
    async (...args: unknown[]) => {
      calls.push({ verb, args });
      return {} as never;
    };
  const resource = {
    ref: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
    createSubresource: record('createSubresource'),
    patch: record('patch'),
    delete: record('delete'),
  } as unknown as ResourceClient<ApiObject>;
  const client = {
    identity: 'system:kube-scheduler',
    resource: () => resource,
    close: async () => {},
  } as unknown as Client;
  return { client, calls };
}

describe('clientEffects', () => {
  const NOW = Date.parse('2024-06-01T12:00:00Z');

  it('binds through pods/binding', async () => {
    const { client, calls } = fakeClient();
    await clientEffects({ client }).bind({ namespace: 'ns', name: 'web', uid: 'u1', nodeName: 'n1' });
    expect(calls).toEqual([
      {
        verb: 'createSubresource',
        args: [
          'ns',
          'web',
          'binding',
          {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { namespace: 'ns', name: 'web', uid: 'u1' },
            target: { kind: 'Node', name: 'n1' },
          },
        ],
      },
    ]);
  });

  it('records FailedScheduling and patches PodScheduled=False and nominatedNodeName', async () => {
    const { client, calls } = fakeClient();
    const events: unknown[][] = [];
    const recorder = { event: (...args: unknown[]) => events.push(args), annotatedEvent: () => {} };
    const target = pod('web');
    const message = '0/1 nodes are available: 1 Insufficient cpu.';
    await clientEffects({ client, recorder }).reportFailure!({
      pod: target,
      condition: podScheduledCondition('Unschedulable', message, NOW),
      event: failedSchedulingEvent(message),
      nominatedNodeName: 'n1',
    });
    expect(events).toEqual([[target, 'Warning', 'FailedScheduling', message]]);
    expect(calls).toEqual([
      {
        verb: 'patch',
        args: [
          'default',
          'web',
          'strategic',
          {
            status: {
              conditions: [
                {
                  type: 'PodScheduled',
                  status: 'False',
                  reason: 'Unschedulable',
                  message,
                  lastTransitionTime: '2024-06-01T12:00:00Z',
                },
              ],
              nominatedNodeName: 'n1',
            },
          },
          { subresource: 'status' },
        ],
      },
    ]);
  });

  it('does not patch an unchanged condition, and keeps the transition time when only the message changes', async () => {
    const { client, calls } = fakeClient();
    const earlier = '2024-01-01T00:00:00Z';
    const target: Pod = {
      ...pod('web'),
      status: {
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: 'old',
            lastTransitionTime: earlier,
          },
        ],
      },
    };
    const effects = clientEffects({ client });
    const report = (message: string) =>
      effects.reportFailure!({
        pod: target,
        condition: podScheduledCondition('Unschedulable', message, NOW),
        event: failedSchedulingEvent(message),
        nominatedNodeName: undefined,
      });
    await report('old');
    expect(calls).toEqual([]);
    await report('new');
    const patch = calls[0]!.args[3] as { status: { conditions: { lastTransitionTime: string }[] } };
    expect(patch.status.conditions[0]!.lastTransitionTime).toBe(earlier);
  });

  it('marks a victim DisruptionTarget, deletes it and records Preempted', async () => {
    const { client, calls } = fakeClient();
    const events: unknown[][] = [];
    const recorder = { event: (...args: unknown[]) => events.push(args), annotatedEvent: () => {} };
    const victim = pod('victim');
    const preemptor = pod('boss', { uid: 'boss-uid' });
    await clientEffects({ client, recorder, now: () => NOW }).preemptVictim!(victim, preemptor, 'n1');
    expect(calls.map((call) => call.verb)).toEqual(['patch', 'delete']);
    expect(calls[0]!.args[3]).toEqual({
      status: {
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'PreemptionByScheduler',
            message: 'default-scheduler: preempting to accommodate a higher priority pod',
            lastTransitionTime: '2024-06-01T12:00:00Z',
          },
        ],
      },
    });
    expect(events).toEqual([[victim, 'Normal', 'Preempted', 'Preempted by pod boss-uid on node n1']]);
  });
});
