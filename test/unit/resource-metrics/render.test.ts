// metrics.k8s.io/v1beta1 objects as metrics-server renders them: quantities, window, metadata,
// NotFound texts, list selectors, and nothing for a node or pod with a single scrape.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { parseFieldSelector } from '../../../src/api/selectors/fields.js';
import { parseLabelSelector } from '../../../src/api/selectors/labels.js';
import {
  getNodeMetrics,
  getPodMetrics,
  listNodeMetrics,
  listPodMetrics,
  renderUsage,
} from '../../../src/apiserver/resource-metrics/render.js';
import {
  type MetricsPoint,
  MetricsStorage,
  type NodeScrape,
} from '../../../src/apiserver/resource-metrics/storage.js';
import { StatusError } from '../../../src/apiserver/status.js';

const T0 = Date.parse('2026-11-28T10:00:00Z');
const point = (timestampMs: number, cpuNs: number, memoryBytes: number): MetricsPoint => ({
  startTimeMs: T0 - 60_000,
  timestampMs,
  cumulativeCpuNs: cpuNs,
  memoryBytes,
});

function scrape(at: number, cpuNs: number, extraPod = false): Map<string, NodeScrape> {
  const pods = [
    {
      namespace: 'default',
      name: 'busy',
      containers: new Map([
        ['burn', point(at, cpuNs, 8 * 1024 * 1024)],
        ['side', point(at, cpuNs / 1000, 1000)],
      ]),
    },
  ];
  const round = new Map<string, NodeScrape>([
    ['n1', { node: point(at, cpuNs * 2, 512 * 1024 * 1024), pods }],
    ['n2', { node: point(at, cpuNs, 3 * 1024), pods: [] }],
  ]);
  if (extraPod) {
    round.set('n3', {
      node: point(at, 1, 1),
      pods: [{ namespace: 'default', name: 'new', containers: new Map([['c', point(at, 1, 1)]]) }],
    });
  }
  return round;
}

const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, labels },
});
const pod = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: 'default', labels },
});

function storage(): MetricsStorage {
  const store = new MetricsStorage();
  store.store(scrape(T0, 1_000_000_000));
  // 15.002 s later: 0.5 core more for the busy container.
  store.store(scrape(T0 + 15_002, 1_000_000_000 + 7_501_000_000, true));
  return store;
}

describe('rendering', () => {
  it('renders CPU as canonical nanocores or millicores and memory in binary SI', () => {
    expect(renderUsage({ cpuNanoCores: 123456789, memoryBytes: 4096 })).toEqual({
      cpu: '123456789n',
      memory: '4Ki',
    });
    expect(renderUsage({ cpuNanoCores: 5_000_000, memoryBytes: 4097 })).toEqual({
      cpu: '5m',
      memory: '4097',
    });
    expect(renderUsage({ cpuNanoCores: 0, memoryBytes: 512 * 1024 * 1024 })).toEqual({
      cpu: '0',
      memory: '512Mi',
    });
  });

  it('gets a NodeMetrics with the node labels, timestamp and window', () => {
    const metrics = getNodeMetrics(storage(), 'n1', node('n1', { zone: 'a' }));
    expect(metrics).toMatchObject({
      kind: 'NodeMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'n1', labels: { zone: 'a' } },
      timestamp: '2026-11-28T10:00:15Z',
      window: '15.002s',
      usage: { cpu: '1', memory: '512Mi' },
    });
    expect(metrics.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('gets a PodMetrics with each container', () => {
    const metrics = getPodMetrics(storage(), 'busy', pod('busy'));
    expect(metrics).toMatchObject({
      kind: 'PodMetrics',
      metadata: { name: 'busy', namespace: 'default' },
      window: '15.002s',
      containers: [
        { name: 'burn', usage: { cpu: '500m', memory: '8Mi' } },
        { name: 'side', usage: { cpu: '500u', memory: '1k' } },
      ],
    });
    expect(metrics.metadata).not.toHaveProperty('labels');
  });

  it('answers NotFound as metrics-server does for unknown objects and ones scraped once', () => {
    const store = storage();
    const attempts: [() => unknown, string][] = [
      [() => getNodeMetrics(store, 'x', undefined), 'nodemetrics.metrics.k8s.io "x" not found'],
      [() => getNodeMetrics(store, 'n3', node('n3')), 'nodemetrics.metrics.k8s.io "n3" not found'],
      [() => getPodMetrics(store, 'new', pod('new')), 'podmetrics.metrics.k8s.io "new" not found'],
    ];
    for (const [attempt, message] of attempts) {
      try {
        attempt();
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(StatusError);
        expect((error as StatusError).code).toBe(404);
        expect((error as StatusError).message).toBe(message);
      }
    }
  });

  it('lists by label and by metadata.name, leaving out objects without metrics', () => {
    const store = storage();
    const nodes = [node('n2', { role: 'b' }), node('n1', { role: 'a' }), node('n3', { role: 'a' })];
    expect(listNodeMetrics(store, nodes).items.map((item) => item.metadata.name)).toEqual(['n1', 'n2']);
    const byLabel = listNodeMetrics(store, nodes, { labels: parseLabelSelector('role=a') });
    expect(byLabel.items.map((item) => item.metadata.name)).toEqual(['n1']);
    const byName = listNodeMetrics(store, nodes, { fields: parseFieldSelector('metadata.name=n2') });
    expect(byName).toMatchObject({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1' });
    expect(byName.items.map((item) => item.metadata.name)).toEqual(['n2']);
    const pods = listPodMetrics(store, [pod('busy', { app: 'x' }), pod('new', { app: 'x' })], {
      labels: parseLabelSelector('app=x'),
    });
    expect(pods.items.map((item) => item.metadata.name)).toEqual(['busy']);
  });
});
