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

  it('breaks ties uniformly at random, with one draw', () => {
    const totals = Float64Array.from([7, 2, 7, 7]);
    let draws = 0;
    const draw = (value: number) => () => {
      draws++;
      return value;
    };
    expect([0, 0.34, 0.67, 0.99].map((value) => selectHost(totals, draw(value)))).toEqual([0, 2, 3, 3]);
    expect(draws).toBe(4);
    // A single best needs no draw.
    expect(selectHost(Float64Array.from([1, 9, 3]), draw(0.5))).toBe(1);
    expect(draws).toBe(4);
  });

  it('gives each tie an equal share over many draws', () => {
    const totals = Float64Array.from([5, 5, 1, 5]);
    const counts = new Map<number, number>();
    for (let step = 0; step < 300; step++) {
      const index = selectHost(totals, () => (step + 0.5) / 300);
      counts.set(index, (counts.get(index) ?? 0) + 1);
    }
    expect(counts).toEqual(
      new Map([
        [0, 100],
        [1, 100],
        [3, 100],
      ]),
    );
  });
});
