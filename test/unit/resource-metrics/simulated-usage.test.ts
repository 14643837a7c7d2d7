// Simulated nodes' usage: running containers at their requests (the default without), the node at
// their sum plus its system share, CPU counters that give those rates through the storage's
// two-point rule, and nothing for pods elsewhere, not Running, or containers not yet started.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { renderUsage } from '../../../src/apiserver/resource-metrics/render.js';
import {
  DEFAULT_CONTAINER_CPU_NANOCORES,
  DEFAULT_CONTAINER_MEMORY_BYTES,
  NODE_SYSTEM_CPU_NANOCORES,
  NODE_SYSTEM_MEMORY_BYTES,
  SimulatedUsage,
} from '../../../src/apiserver/resource-metrics/simulated-usage.js';
import { MetricsStorage } from '../../../src/apiserver/resource-metrics/storage.js';

const T0 = Date.parse('2026-11-28T12:00:00Z');
const node: Node = { metadata: { name: 'fake-node-0', creationTimestamp: '2026-11-28T11:00:00Z' } };

function pod(name: string, nodeName: string, phase: string, containers: NonNullable<Pod['spec']>): Pod {
  const started = { running: { startedAt: '2026-11-28T11:30:00Z' } };
  return {
    metadata: { name, namespace: 'shop' },
    spec: { ...containers, nodeName },
    status: {
      phase,
      containerStatuses: (containers?.containers ?? []).map((c) => ({
        name: c.name,
        image: 'x',
        imageID: '',
        ready: true,
        restartCount: 0,
        state: name === 'starting' ? { waiting: { reason: 'ContainerCreating' } } : started,
      })),
    },
  };
}

const pods: Pod[] = [
  pod('web', 'fake-node-0', 'Running', {
    containers: [
      { name: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
      { name: 'sidecar' },
    ],
  }),
  pod('other-node', 'fake-node-1', 'Running', { containers: [{ name: 'c' }] }),
  pod('done', 'fake-node-0', 'Succeeded', { containers: [{ name: 'c' }] }),
  pod('starting', 'fake-node-0', 'Running', { containers: [{ name: 'c' }] }),
];

describe('SimulatedUsage', () => {
  it("reports running containers at their requests, or the default, and only this node's pods", () => {
    const scrape = new SimulatedUsage().scrape(node, pods, T0);
    expect(scrape.pods.map((p) => p.name)).toEqual(['web']);
    const containers = scrape.pods[0]!.containers;
    expect(containers.get('nginx')?.memoryBytes).toBe(64 * 1024 * 1024);
    expect(containers.get('sidecar')?.memoryBytes).toBe(DEFAULT_CONTAINER_MEMORY_BYTES);
    expect(scrape.node.memoryBytes).toBe(
      NODE_SYSTEM_MEMORY_BYTES + 64 * 1024 * 1024 + DEFAULT_CONTAINER_MEMORY_BYTES,
    );
  });

  it('gives the storage CPU rates equal to the requests after two scrapes', () => {
    const simulated = new SimulatedUsage();
    const storage = new MetricsStorage();
    storage.store(new Map([['fake-node-0', simulated.scrape(node, pods, T0)]]));
    expect(storage.podUsage('shop', 'web')).toBeUndefined();
    storage.store(new Map([['fake-node-0', simulated.scrape(node, pods, T0 + 15_000)]]));
    const web = storage.podUsage('shop', 'web')!;
    expect(renderUsage(web.get('nginx')!)).toEqual({ cpu: '100m', memory: '64Mi' });
    expect(web.get('sidecar')!.cpuNanoCores).toBe(DEFAULT_CONTAINER_CPU_NANOCORES);
    const nodeUsage = storage.nodeUsage('fake-node-0')!;
    expect(nodeUsage.cpuNanoCores).toBe(
      NODE_SYSTEM_CPU_NANOCORES + 100_000_000 + DEFAULT_CONTAINER_CPU_NANOCORES,
    );
    expect(nodeUsage.windowMs).toBe(15_000);
  });

  it('keeps the node counter rising when a pod goes away (no restart, the new rate)', () => {
    const simulated = new SimulatedUsage();
    const storage = new MetricsStorage();
    storage.store(new Map([['fake-node-0', simulated.scrape(node, pods, T0)]]));
    storage.store(new Map([['fake-node-0', simulated.scrape(node, [], T0 + 15_000)]]));
    expect(storage.nodeUsage('fake-node-0')).toMatchObject({
      cpuNanoCores: NODE_SYSTEM_CPU_NANOCORES,
      windowMs: 15_000,
    });
  });
});
