import { describe, expect, it } from 'vitest';
import { NodeUnschedulable } from '../../../../src/scheduler/plugins/node-unschedulable.js';
import { filterAll, node, nodeInfo, pod } from '../fixtures.js';

describe('NodeUnschedulable', () => {
  const cases = [
    { name: 'schedulable node', unschedulable: false, tolerations: undefined, want: '' },
    {
      name: 'cordoned node',
      unschedulable: true,
      tolerations: undefined,
      want: 'node(s) were unschedulable',
    },
    {
      name: 'cordoned node, pod tolerates the unschedulable taint',
      unschedulable: true,
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
      want: '',
    },
    {
      name: 'cordoned node, toleration for another effect',
      unschedulable: true,
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }],
      want: 'node(s) were unschedulable',
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const result = filterAll(
        new NodeUnschedulable(),
        pod('p', { spec: { tolerations: testCase.tolerations } }),
        [nodeInfo(node('n1', { unschedulable: testCase.unschedulable }))],
      );
      expect(result.n1).toBe(testCase.want);
    });
  }

  it('rejects as UnschedulableAndUnresolvable', () => {
    const plugin = new NodeUnschedulable();
    const status = plugin.filter(
      undefined as never,
      { pod: pod('p') } as never,
      nodeInfo(node('n1', { unschedulable: true })),
    );
    expect(status?.code).toBe(3);
  });
});
