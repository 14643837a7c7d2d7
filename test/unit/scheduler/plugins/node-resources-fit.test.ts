import { describe, expect, it } from 'vitest';
import type { Container } from '../../../../src/api/types/core-v1.generated.js';
import { BalancedAllocation } from '../../../../src/scheduler/plugins/balanced-allocation.js';
import { NodeResourcesFit } from '../../../../src/scheduler/plugins/node-resources-fit.js';
import { filterAll, frameworkOf, node, nodeInfo, pod, scoresOf } from '../fixtures.js';

function containers(...cpus: string[]): Container[] {
  return cpus.map((cpu, index) => ({ name: `c${index}`, image: 'x', resources: { requests: { cpu } } }));
}

describe('NodeResourcesFit filter', () => {
  // A node with 10 cpu / 20 Gi / 32 pods holding one pod using 5 cpu / 10 Gi.
  const busyNode = () =>
    nodeInfo(node('n', { cpu: '10', memory: '20Gi', pods: '32' }), [
      pod('existing', { cpu: '5', memory: '10Gi' }),
    ]);

  const cases: {
    name: string;
    spec?: object;
    cpu?: string;
    memory?: string;
    want: string;
    requests?: Record<string, string>;
  }[] = [
    { name: 'fits', cpu: '1', memory: '1Gi', want: '' },
    { name: 'exactly the free amount fits', cpu: '5', memory: '10Gi', want: '' },
    { name: 'too much cpu', cpu: '6', want: 'Insufficient cpu' },
    {
      name: 'too much cpu and memory',
      cpu: '6',
      memory: '11Gi',
      want: 'Insufficient cpu, Insufficient memory',
    },
    {
      name: 'an init container larger than the containers counts',
      spec: { containers: containers('1'), initContainers: containers('6') },
      want: 'Insufficient cpu',
    },
    {
      name: 'init containers run one at a time: their maximum counts, not their sum',
      spec: { containers: containers('1'), initContainers: containers('3', '4') },
      want: '',
    },
    {
      name: 'containers add up',
      spec: { containers: containers('3', '3') },
      want: 'Insufficient cpu',
    },
    {
      name: 'sidecars keep running alongside later init containers and the containers',
      spec: {
        containers: containers('2'),
        initContainers: [
          { name: 'sidecar', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '2' } } },
          { name: 'init', image: 'x', resources: { requests: { cpu: '2' } } },
        ],
      },
      // containers 2 + sidecar 2 = 4; init step 2 + sidecar 2 = 4: fits 5 free.
      want: '',
    },
    {
      name: 'sidecar plus a big init container',
      spec: {
        containers: containers('1'),
        initContainers: [
          { name: 'sidecar', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '2' } } },
          { name: 'init', image: 'x', resources: { requests: { cpu: '4' } } },
        ],
      },
      want: 'Insufficient cpu',
    },
    {
      name: 'pod overhead is added',
      spec: { containers: containers('4500m'), overhead: { cpu: '600m' } },
      want: 'Insufficient cpu',
    },
    {
      name: 'extended resource the node lacks',
      requests: { 'example.com/foo': '1' },
      want: 'Insufficient example.com/foo',
    },
    { name: 'hugepages', requests: { 'hugepages-2Mi': '4Mi' }, want: 'Insufficient hugepages-2Mi' },
    {
      name: 'ephemeral storage',
      requests: { 'ephemeral-storage': '1Gi' },
      want: 'Insufficient ephemeral-storage',
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const spec = testCase.spec;
      const result = filterAll(
        new NodeResourcesFit(),
        pod('p', { cpu: testCase.cpu, memory: testCase.memory, requests: testCase.requests, spec }),
        [busyNode()],
      );
      expect(result.n).toBe(testCase.want);
    });
  }

  it('checks the pods capacity', () => {
    const full = nodeInfo(node('n', { pods: '1' }), [pod('existing')]);
    expect(filterAll(new NodeResourcesFit(), pod('p'), [full]).n).toBe('Too many pods');
    expect(filterAll(new NodeResourcesFit(), pod('p', { cpu: '100' }), [full]).n).toBe(
      'Too many pods, Insufficient cpu',
    );
  });

  it('extended resources on the node are counted', () => {
    const gpuNode = nodeInfo(
      node('n', { allocatable: { cpu: '4', memory: '1Gi', pods: '10', 'example.com/gpu': '2' } }),
      [pod('existing', { requests: { 'example.com/gpu': '1' } })],
    );
    expect(
      filterAll(new NodeResourcesFit(), pod('p', { requests: { 'example.com/gpu': '1' } }), [gpuNode]).n,
    ).toBe('');
    expect(
      filterAll(new NodeResourcesFit(), pod('p', { requests: { 'example.com/gpu': '2' } }), [gpuNode]).n,
    ).toBe('Insufficient example.com/gpu');
  });

  it('ignores configured extended resources and resource groups', () => {
    const plain = nodeInfo(node('n'));
    const byName = new NodeResourcesFit(undefined, { ignoredResources: ['example.com/foo'] });
    const byGroup = new NodeResourcesFit(undefined, { ignoredResourceGroups: ['example.com'] });
    const wanting = pod('p', { requests: { 'example.com/foo': '1' } });
    expect(filterAll(byName, wanting, [plain]).n).toBe('');
    expect(filterAll(byGroup, wanting, [plain]).n).toBe('');
  });

  it('a pod requesting nothing fits an overcommitted node', () => {
    const over = nodeInfo(node('n', { cpu: '1' }), [pod('existing', { cpu: '2' })]);
    expect(filterAll(new NodeResourcesFit(), pod('p'), [over]).n).toBe('');
  });

  it('is Unschedulable, so preemption may help', () => {
    const plugin = new NodeResourcesFit();
    const infos = [busyNode()];
    const result = filterAll(plugin, pod('p', { cpu: '6' }), infos);
    expect(result.n).toBe('Insufficient cpu');
    const status = plugin.filter(
      undefined as never,
      { requests: { milliCPU: 6000, memory: 0, ephemeralStorage: 0, scalar: null } } as never,
      infos[0]!,
    );
    expect(status?.code).toBe(2);
  });
});

describe('NodeResourcesFit score (LeastAllocated)', () => {
  it('prefers the node with more free resources, cpu and memory weighted equally', () => {
    const infos = [
      nodeInfo(node('small', { cpu: '4', memory: '10000' })),
      nodeInfo(node('large', { cpu: '6', memory: '10000' })),
    ];
    const { framework } = frameworkOf(infos, [(handle) => new NodeResourcesFit(handle)]);
    // small: cpu (4000-3000)/4000 = 25, memory (10000-5000)/10000 = 50 → 37; large: 50 and 50 → 50.
    expect(scoresOf(framework, pod('p', { cpu: '3', memory: '5000' }), infos)).toEqual({
      small: 37,
      large: 50,
    });
  });

  it('counts existing pods and uses 100m / 200Mi for containers without requests', () => {
    const infos = [
      nodeInfo(node('empty', { cpu: '4', memory: '8Gi' })),
      nodeInfo(node('busy', { cpu: '4', memory: '8Gi' }), [pod('x', { cpu: '2', memory: '4Gi' })]),
    ];
    const { framework } = frameworkOf(infos, [(handle) => new NodeResourcesFit(handle)]);
    // empty: cpu (4000-100)/4000 → 97, memory (8Gi-200Mi)/8Gi → 97; busy: cpu 47, memory 47.
    expect(scoresOf(framework, pod('p'), infos)).toEqual({ empty: 97, busy: 47 });
  });
});

describe('NodeResourcesBalancedAllocation', () => {
  it('scores 1 - std of the cpu and memory fractions', () => {
    const infos = [
      nodeInfo(node('small', { cpu: '4', memory: '10000' })),
      nodeInfo(node('large', { cpu: '6', memory: '10000' })),
    ];
    const { framework } = frameworkOf(infos, [(handle) => new BalancedAllocation(handle)]);
    // small: 0.75 vs 0.5 → std 0.125 → 87; large: 0.5 vs 0.5 → 100.
    expect(scoresOf(framework, pod('p', { cpu: '3', memory: '5000' }), infos)).toEqual({
      small: 87,
      large: 100,
    });
  });

  it('counts the real requests of existing pods and caps fractions at 1', () => {
    const infos = [nodeInfo(node('n', { cpu: '4', memory: '10000' }), [pod('x', { cpu: '8' })])];
    const { framework } = frameworkOf(infos, [(handle) => new BalancedAllocation(handle)]);
    // cpu fraction min(9000/4000, 1) = 1, memory 5000/10000 = 0.5 → std 0.25 → 75.
    expect(scoresOf(framework, pod('p', { cpu: '1', memory: '5000' }), infos)).toEqual({ n: 75 });
  });

  it('skips pods that request nothing', () => {
    const infos = [nodeInfo(node('a')), nodeInfo(node('b'), [pod('x', { cpu: '3' })])];
    const { framework } = frameworkOf(infos, [(handle) => new BalancedAllocation(handle)]);
    expect(scoresOf(framework, pod('p'), infos)).toEqual({ a: 0, b: 0 });
  });
});
