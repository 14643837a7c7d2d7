import { describe, expect, it } from 'vitest';
import type { PodDisruptionBudget } from '../../../../src/api/types/policy-v1.generated.js';
import { PodInfo } from '../../../../src/scheduler/cache/pod-info.js';
import { CycleState } from '../../../../src/scheduler/framework/cycle-state.js';
import {
  type Candidate,
  pickOneNodeForPreemption,
} from '../../../../src/scheduler/plugins/default-preemption/candidates.js';
import {
  filterPodsWithPDBViolation,
  selectVictimsOnNode,
} from '../../../../src/scheduler/plugins/default-preemption/victims.js';
import { NodeResourcesFit } from '../../../../src/scheduler/plugins/node-resources-fit.js';
import { frameworkOf, node, nodeInfo, pod } from '../fixtures.js';

const NOW = Date.parse('2024-06-01T12:00:00Z');

function select(
  nodeCpu: string,
  existing: ReturnType<typeof pod>[],
  preemptor: ReturnType<typeof pod>,
  pdbs: PodDisruptionBudget[] = [],
) {
  const info = nodeInfo(node('n', { cpu: nodeCpu }), existing);
  const { framework } = frameworkOf([info], [(handle) => new NodeResourcesFit(handle)]);
  const state = new CycleState();
  const podInfo = new PodInfo(preemptor);
  framework.runPreFilterPlugins(state, podInfo, [info]);
  const result = selectVictimsOnNode(framework, state, podInfo, info.clone(), pdbs, NOW);
  return { ...result, names: result.victims.map((victim) => victim.name) };
}

function pdb(
  name: string,
  labels: Record<string, string>,
  disruptionsAllowed: number,
  disruptedPods?: Record<string, string>,
): PodDisruptionBudget {
  return {
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels: labels } },
    status: { disruptionsAllowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptedPods },
  };
}

describe('selectVictimsOnNode', () => {
  it('evicts only what is needed, lowest priority first', () => {
    const existing = [
      pod('p1', { cpu: '1', priority: 1 }),
      pod('p2', { cpu: '1', priority: 2 }),
      pod('p3', { cpu: '1', priority: 3 }),
    ];
    const result = select('3', existing, pod('new', { cpu: '1', priority: 10 }));
    expect(result.status).toBeNull();
    expect(result.names).toEqual(['p1']);
  });

  it('evicts several when one is not enough, keeping the most important', () => {
    const existing = [
      pod('p1', { cpu: '1', priority: 1 }),
      pod('p2', { cpu: '1', priority: 2 }),
      pod('p3', { cpu: '1', priority: 3 }),
    ];
    expect(select('3', existing, pod('new', { cpu: '2', priority: 10 })).names).toEqual(['p2', 'p1']);
  });

  it('among equal priorities, the pod that started later goes first', () => {
    const existing = [
      pod('early', { cpu: '1', priority: 1, startTime: '2024-01-01T00:00:00Z' }),
      pod('late', { cpu: '1', priority: 1, startTime: '2024-05-01T00:00:00Z' }),
    ];
    expect(select('2', existing, pod('new', { cpu: '1', priority: 10 })).names).toEqual(['late']);
  });

  it('never touches pods of equal or higher priority', () => {
    const existing = [pod('peer', { cpu: '1', priority: 10 }), pod('low', { cpu: '1', priority: 1 })];
    const result = select('2', existing, pod('new', { cpu: '2', priority: 10 }));
    expect(result.status?.message()).toBe('Insufficient cpu');
    expect(result.victims).toEqual([]);
  });

  it('reports when there is nothing to preempt', () => {
    const result = select(
      '1',
      [pod('peer', { cpu: '1', priority: 10 })],
      pod('new', { cpu: '1', priority: 10 }),
    );
    expect(result.status?.message()).toBe('No preemption victims found for incoming pod');
    expect(result.status?.code).toBe(3);
  });

  it('reprieves PDB-protected pods first, so unprotected ones go instead', () => {
    const existing = [
      pod('protected', { cpu: '1', priority: 1, labels: { app: 'db' } }),
      pod('free', { cpu: '1', priority: 2 }),
    ];
    // Without a PDB the lowest priority (protected) would go.
    expect(select('2', existing, pod('new', { cpu: '1', priority: 10 })).names).toEqual(['protected']);
    const result = select('2', existing, pod('new', { cpu: '1', priority: 10 }), [
      pdb('db', { app: 'db' }, 0),
    ]);
    expect(result.names).toEqual(['free']);
    expect(result.numPDBViolations).toBe(0);
  });

  it('counts the PDB violations it cannot avoid', () => {
    const existing = [
      pod('a', { cpu: '1', priority: 1, labels: { app: 'db' } }),
      pod('b', { cpu: '1', priority: 1, labels: { app: 'db' } }),
    ];
    const result = select('2', existing, pod('new', { cpu: '2', priority: 10 }), [
      pdb('db', { app: 'db' }, 1),
    ]);
    expect(result.names.sort()).toEqual(['a', 'b']);
    expect(result.numPDBViolations).toBe(1);
  });
});

describe('filterPodsWithPDBViolation', () => {
  const infos = (names: string[]) => names.map((name) => new PodInfo(pod(name, { labels: { app: 'db' } })));

  it('spends the budget in order; pods already disrupted do not count; empty selectors match nothing', () => {
    const result = filterPodsWithPDBViolation(infos(['a', 'b', 'c']), [
      pdb('db', { app: 'db' }, 1, { b: '2024-01-01T00:00:00Z' }),
    ]);
    expect(result.violating.map((info) => info.name)).toEqual(['c']);
    expect(result.nonViolating.map((info) => info.name)).toEqual(['a', 'b']);
    const empty: PodDisruptionBudget = { ...pdb('all', {}, 0), spec: { selector: {} } };
    expect(filterPodsWithPDBViolation(infos(['a']), [empty]).violating).toEqual([]);
  });

  it('ignores PDBs of other namespaces', () => {
    const other = { ...pdb('db', { app: 'db' }, 0), metadata: { name: 'db', namespace: 'other' } };
    expect(filterPodsWithPDBViolation(infos(['a']), [other]).violating).toEqual([]);
  });
});

describe('pickOneNodeForPreemption', () => {
  const victim = (priority: number, startTime?: string) =>
    new PodInfo(pod(`v${priority}-${startTime ?? ''}`, { priority, startTime }));
  const candidate = (nodeName: string, victims: PodInfo[], numPDBViolations = 0): Candidate => ({
    nodeName,
    victims,
    numPDBViolations,
  });

  it.each([
    {
      name: 'fewest PDB violations',
      candidates: [candidate('a', [victim(1)], 1), candidate('b', [victim(5)], 0)],
      want: 'b',
    },
    {
      name: 'lowest highest-priority victim',
      candidates: [candidate('a', [victim(5), victim(1)]), candidate('b', [victim(3), victim(2), victim(1)])],
      want: 'b',
    },
    {
      name: 'smallest sum of priorities',
      candidates: [candidate('a', [victim(3), victim(3)]), candidate('b', [victim(3), victim(1)])],
      want: 'b',
    },
    {
      name: 'fewest victims (negative priorities included)',
      candidates: [candidate('a', [victim(-5), victim(-5)]), candidate('b', [victim(-5)])],
      want: 'b',
    },
    {
      name: 'latest start time of the highest-priority victims',
      candidates: [
        candidate('a', [victim(3, '2024-01-01T00:00:00Z')]),
        candidate('b', [victim(3, '2024-03-01T00:00:00Z')]),
      ],
      want: 'b',
    },
    {
      name: 'otherwise the first',
      candidates: [
        candidate('a', [victim(3, '2024-01-01T00:00:00Z')]),
        candidate('b', [victim(3, '2024-01-01T00:00:00Z')]),
      ],
      want: 'a',
    },
  ])('$name', ({ candidates, want }) => {
    expect(pickOneNodeForPreemption(candidates, NOW)?.nodeName).toBe(want);
  });
});
