import { describe, expect, it } from 'vitest';
import { NodeName } from '../../../../src/scheduler/plugins/node-name.js';
import { filterAll, node, nodeInfo, pod } from '../fixtures.js';

describe('NodeName', () => {
  const nodes = () => [nodeInfo(node('n1')), nodeInfo(node('n2'))];
  it.each([
    { name: 'no node name fits every node', nodeName: undefined, want: { n1: '', n2: '' } },
    {
      name: 'a named node fits only that node',
      nodeName: 'n2',
      want: { n1: "node(s) didn't match the requested node name", n2: '' },
    },
  ])('$name', ({ nodeName, want }) => {
    expect(filterAll(new NodeName(), pod('p', { spec: { nodeName } }), nodes())).toEqual(want);
  });
});
