import { describe, expect, it } from 'vitest';
import type { Taint, Toleration } from '../../../../src/api/types/core-v1.generated.js';
import { TaintToleration } from '../../../../src/scheduler/plugins/taint-toleration.js';
import { filterAll, frameworkOf, node, nodeInfo, pod, scoresOf } from '../fixtures.js';

const controlPlane: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('TaintToleration filter', () => {
  const cases: { name: string; taints: Taint[]; tolerations?: Toleration[]; want: string }[] = [
    { name: 'no taints', taints: [], want: '' },
    {
      name: 'untolerated NoSchedule taint without value',
      taints: [controlPlane],
      want: 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }',
    },
    {
      name: 'untolerated NoExecute taint with value',
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }],
      want: 'node(s) had untolerated taint {dedicated: gpu}',
    },
    {
      name: 'PreferNoSchedule does not filter',
      taints: [{ key: 'soft', effect: 'PreferNoSchedule' }],
      want: '',
    },
    {
      name: 'Exists toleration without key tolerates everything',
      taints: [controlPlane, { key: 'x', value: 'y', effect: 'NoExecute' }],
      tolerations: [{ operator: 'Exists' }],
      want: '',
    },
    {
      name: 'Equal toleration needs the same value',
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      tolerations: [{ key: 'dedicated', value: 'cpu', operator: 'Equal', effect: 'NoSchedule' }],
      want: 'node(s) had untolerated taint {dedicated: gpu}',
    },
    {
      name: 'empty operator means Equal',
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      tolerations: [{ key: 'dedicated', value: 'gpu' }],
      want: '',
    },
    {
      name: 'toleration with another effect does not tolerate',
      taints: [controlPlane],
      tolerations: [
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoExecute' },
      ],
      want: 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }',
    },
    {
      name: 'the first untolerated taint is reported',
      taints: [
        { key: 'a', value: '1', effect: 'NoSchedule' },
        { key: 'b', value: '2', effect: 'NoSchedule' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
      want: 'node(s) had untolerated taint {b: 2}',
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const result = filterAll(
        new TaintToleration(),
        pod('p', { spec: { tolerations: testCase.tolerations } }),
        [nodeInfo(node('n1', { taints: testCase.taints }))],
      );
      expect(result.n1).toBe(testCase.want);
    });
  }
});

describe('TaintToleration score', () => {
  it('scores fewer untolerated PreferNoSchedule taints higher (reverse-normalised)', () => {
    const nodes = [
      nodeInfo(node('clean')),
      nodeInfo(node('one', { taints: [{ key: 'a', value: '1', effect: 'PreferNoSchedule' }] })),
      nodeInfo(
        node('two', {
          taints: [
            { key: 'a', value: '1', effect: 'PreferNoSchedule' },
            { key: 'b', value: '1', effect: 'PreferNoSchedule' },
          ],
        }),
      ),
      nodeInfo(node('tolerated', { taints: [{ key: 'c', value: '1', effect: 'PreferNoSchedule' }] })),
    ];
    const { framework } = frameworkOf(nodes, [() => new TaintToleration()]);
    const scores = scoresOf(
      framework,
      pod('p', { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } }),
      nodes,
    );
    expect(scores).toEqual({ clean: 100, one: 50, two: 0, tolerated: 100 });
  });

  it('only PreferNoSchedule tolerations (or those without effect) count', () => {
    const nodes = [
      nodeInfo(node('one', { taints: [{ key: 'a', value: '1', effect: 'PreferNoSchedule' }] })),
      nodeInfo(node('clean')),
    ];
    const { framework } = frameworkOf(nodes, [() => new TaintToleration()]);
    const scores = scoresOf(
      framework,
      pod('p', { spec: { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }] } }),
      nodes,
    );
    expect(scores).toEqual({ one: 0, clean: 100 });
  });
});
