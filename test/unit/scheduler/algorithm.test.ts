import { describe, expect, it } from 'vitest';
import { numFeasibleNodesToFind, selectHost } from '../../../src/scheduler/algorithm.js';

describe('numFeasibleNodesToFind', () => {
  it.each([
    { nodes: 10, percentage: 0, want: 10 },
    { nodes: 99, percentage: 0, want: 99 },
    { nodes: 100, percentage: 0, want: 100 },
    // 50% − 1000/125 = 42%.
    { nodes: 1000, percentage: 0, want: 420 },
    // 50% − 40 = 10%.
    { nodes: 5000, percentage: 0, want: 500 },
    // Never below 5%.
    { nodes: 10000, percentage: 0, want: 500 },
    // Never below 100 nodes.
    { nodes: 150, percentage: 10, want: 100 },
    { nodes: 1000, percentage: 30, want: 300 },
    { nodes: 1000, percentage: 100, want: 1000 },
  ])('$nodes nodes at $percentage% → $want', ({ nodes, percentage, want }) => {
    expect(numFeasibleNodesToFind(percentage, nodes)).toBe(want);
  });
});

describe('selectHost', () => {
  it('picks the highest total', () => {
    expect(selectHost(Float64Array.from([1, 5, 3]), () => 0.5)).toBe(1);
  });

  it('breaks ties uniformly at random (reservoir sampling)', () => {
    const totals = Float64Array.from([7, 2, 7, 7]);
    expect(selectHost(totals, () => 0)).toBe(3);
    expect(selectHost(totals, () => 0.99)).toBe(0);
  });
});
