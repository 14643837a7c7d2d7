import { describe, expect, it } from 'vitest';
import type {
  NodeSelectorTerm,
  PreferredSchedulingTerm,
} from '../../../../src/api/types/core-v1.generated.js';
import { NodeAffinity } from '../../../../src/scheduler/plugins/node-affinity.js';
import { filterWith, frameworkOf, node, nodeInfo, pod, scoresOf } from '../fixtures.js';

const MISMATCH = "node(s) didn't match Pod's node affinity/selector";

function required(...terms: NodeSelectorTerm[]) {
  return {
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
    },
  };
}

describe('NodeAffinity filter', () => {
  const nodes = () => [
    nodeInfo(node('a', { labels: { zone: 'z1', disk: 'ssd', cores: '8' } })),
    nodeInfo(node('b', { labels: { zone: 'z2', cores: '2' } })),
  ];
  const cases: { name: string; spec: object; want: Record<string, string> }[] = [
    { name: 'nodeSelector', spec: { nodeSelector: { zone: 'z1' } }, want: { a: '', b: MISMATCH } },
    {
      name: 'nodeSelector on a missing label',
      spec: { nodeSelector: { gpu: 'yes' } },
      want: { a: MISMATCH, b: MISMATCH },
    },
    {
      name: 'In',
      spec: required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z2', 'z3'] }] }),
      want: { a: MISMATCH, b: '' },
    },
    {
      name: 'NotIn matches nodes without the label',
      spec: required({ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }),
      want: { a: MISMATCH, b: '' },
    },
    {
      name: 'Exists',
      spec: required({ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }),
      want: { a: '', b: MISMATCH },
    },
    {
      name: 'DoesNotExist',
      spec: required({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }),
      want: { a: MISMATCH, b: '' },
    },
    {
      name: 'Gt compares integers',
      spec: required({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }),
      want: { a: '', b: MISMATCH },
    },
    {
      name: 'Lt compares integers',
      spec: required({ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['4'] }] }),
      want: { a: MISMATCH, b: '' },
    },
    {
      name: 'terms are ORed',
      spec: required(
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] },
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z2'] }] },
      ),
      want: { a: '', b: '' },
    },
    {
      name: 'expressions in a term are ANDed',
      spec: required({
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['z1'] },
          { key: 'disk', operator: 'DoesNotExist' },
        ],
      }),
      want: { a: MISMATCH, b: MISMATCH },
    },
    { name: 'an empty term matches nothing', spec: required({}), want: { a: MISMATCH, b: MISMATCH } },
    {
      name: 'an invalid term matches nothing (Gt with two values)',
      spec: required({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['1', '2'] }] }),
      want: { a: MISMATCH, b: MISMATCH },
    },
    {
      name: 'matchFields metadata.name NotIn',
      spec: required({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }),
      want: { a: MISMATCH, b: '' },
    },
    {
      name: 'nodeSelector and affinity must both match',
      spec: {
        nodeSelector: { zone: 'z1' },
        ...required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z2'] }] }),
      },
      want: { a: MISMATCH, b: MISMATCH },
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const infos = nodes();
      const { framework } = frameworkOf(infos, [() => new NodeAffinity()]);
      expect(filterWith(framework, pod('p', { spec: testCase.spec }), infos)).toEqual(testCase.want);
    });
  }

  it('matchFields metadata.name In narrows the nodes to filter (PreFilterResult)', () => {
    const infos = nodes();
    const { framework } = frameworkOf(infos, [() => new NodeAffinity()]);
    const spec = required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] });
    expect(filterWith(framework, pod('p', { spec }), infos)).toEqual({ a: '<excluded>', b: '' });
  });

  it('terms naming disjoint nodes conflict', () => {
    const infos = nodes();
    const { framework } = frameworkOf(infos, [() => new NodeAffinity()]);
    const spec = required({
      matchFields: [
        { key: 'metadata.name', operator: 'In', values: ['a'] },
        { key: 'metadata.name', operator: 'In', values: ['b'] },
      ],
    });
    expect(filterWith(framework, pod('p', { spec }), infos)).toEqual({
      a: 'pod affinity terms conflict',
      b: 'pod affinity terms conflict',
    });
  });
});

describe('NodeAffinity score', () => {
  it('sums weights of matching preferred terms and normalises to 100', () => {
    const infos = [
      nodeInfo(node('both', { labels: { zone: 'z1', disk: 'ssd' } })),
      nodeInfo(node('zone', { labels: { zone: 'z1' } })),
      nodeInfo(node('none')),
    ];
    const preferred: PreferredSchedulingTerm[] = [
      { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] } },
      { weight: 6, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
      { weight: 0, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } },
    ];
    const { framework } = frameworkOf(infos, [() => new NodeAffinity()]);
    const scores = scoresOf(
      framework,
      pod('p', {
        spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } },
      }),
      infos,
    );
    // Raw: both = 8, zone = 2, none = 0; normalised 100 × raw / 8 (integer division).
    expect(scores).toEqual({ both: 100, zone: 25, none: 0 });
  });
});
