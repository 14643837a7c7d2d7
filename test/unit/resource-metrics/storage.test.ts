// metrics-server's storage rules: CPU as the rate between two scrapes, restarts, pods only with
// every container known twice; and the Summary decoder that feeds it.
import { describe, expect, it } from 'vitest';
import {
  type MetricsPoint,
  MetricsStorage,
  type NodeScrape,
  usageBetween,
} from '../../../src/apiserver/resource-metrics/storage.js';
import { decodeSummary } from '../../../src/apiserver/resource-metrics/summary-decode.js';

const point = (
  timestampMs: number,
  cumulativeCpuNs: number,
  memoryBytes = 100,
  startTimeMs = 0,
): MetricsPoint => ({
  startTimeMs,
  timestampMs,
  cumulativeCpuNs,
  memoryBytes,
});

describe('usageBetween', () => {
  it('is the CPU rate over the window and the last working set', () => {
    expect(usageBetween(point(20_000, 15e9, 300), point(10_000, 10e9, 200))).toEqual({
      timestampMs: 20_000,
      windowMs: 10_000,
      cpuNanoCores: 0.5e9,
      memoryBytes: 300,
    });
  });

  it('has no usage from one point, or from points at the same time', () => {
    expect(usageBetween(point(1, 1), undefined)).toBeUndefined();
    expect(usageBetween(point(1, 2), point(1, 1))).toBeUndefined();
  });

  it('counts from the start time after a restart between the points', () => {
    expect(usageBetween(point(20_000, 1e9, 1, 18_000), point(10_000, 50e9))).toMatchObject({
      windowMs: 2_000,
      cpuNanoCores: 0.5e9,
    });
  });
});

describe('MetricsStorage', () => {
  const round = (t: number, nodeCpu: number, containers: Record<string, number>): Map<string, NodeScrape> =>
    new Map([
      [
        'n1',
        {
          node: point(t, nodeCpu),
          pods: [
            {
              namespace: 'default',
              name: 'web',
              containers: new Map(Object.entries(containers).map(([name, cpu]) => [name, point(t, cpu)])),
            },
          ],
        },
      ],
    ]);

  it('reports nodes and pods from the second round on', () => {
    const storage = new MetricsStorage();
    storage.store(round(10_000, 1e9, { app: 1e9 }));
    expect(storage.nodeUsage('n1')).toBeUndefined();
    expect(storage.podUsage('default', 'web')).toBeUndefined();
    storage.store(round(20_000, 11e9, { app: 2e9 }));
    expect(storage.nodeUsage('n1')?.cpuNanoCores).toBe(1e9);
    expect(storage.podUsage('default', 'web')?.get('app')?.cpuNanoCores).toBe(0.1e9);
    expect(storage.podKeys()).toEqual([{ namespace: 'default', name: 'web' }]);
  });

  it('leaves out a pod one of whose containers is new, and forgets what a round lacks', () => {
    const storage = new MetricsStorage();
    storage.store(round(10_000, 1e9, { app: 1e9 }));
    storage.store(round(20_000, 2e9, { app: 2e9, side: 1e9 }));
    expect(storage.podUsage('default', 'web')).toBeUndefined();
    storage.store(new Map());
    expect(storage.nodeNames()).toEqual([]);
    expect(storage.nodeUsage('n1')).toBeUndefined();
  });
});

describe('decodeSummary', () => {
  it('reads the node and containers, skipping those without CPU or memory', () => {
    const scrape = decodeSummary({
      node: {
        nodeName: 'n1',
        startTime: '2026-01-01T00:00:00Z',
        cpu: { time: '2026-01-01T00:01:00Z', usageCoreNanoSeconds: 5 },
        memory: { time: '2026-01-01T00:01:00Z', workingSetBytes: 7 },
      },
      pods: [
        {
          podRef: { name: 'web', namespace: 'default' },
          containers: [
            {
              name: 'app',
              startTime: '2026-01-01T00:00:10Z',
              cpu: { time: '2026-01-01T00:01:00Z', usageCoreNanoSeconds: 3 },
              memory: { workingSetBytes: 4 },
            },
            { name: 'starting', startTime: '2026-01-01T00:00:59Z' },
          ],
        },
        { podRef: { name: 'empty', namespace: 'default' }, containers: [] },
      ],
    });
    expect(scrape?.node).toEqual({
      startTimeMs: Date.UTC(2026, 0, 1),
      timestampMs: Date.UTC(2026, 0, 1, 0, 1),
      cumulativeCpuNs: 5,
      memoryBytes: 7,
    });
    expect(scrape?.pods).toHaveLength(1);
    expect([...scrape!.pods[0]!.containers.keys()]).toEqual(['app']);
  });

  it('has nothing without a node point', () => {
    expect(decodeSummary({ node: { nodeName: 'n1' } })).toBeUndefined();
  });
});
