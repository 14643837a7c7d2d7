// The kubelet's Summary: cgroup files read as cAdvisor reads them, usageNanoCores derived from
// cumulative CPU across calls, pods summed from their running containers.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Container, ContainerStats, PodSandbox } from '../../../src/agent/kubelet/cri/types.js';
import { readCgroupUsage } from '../../../src/agent/kubelet/stats/cgroup-usage.js';
import { CpuRateCache } from '../../../src/agent/kubelet/stats/cpu-rate.js';
import { buildSummary } from '../../../src/agent/kubelet/stats/summary.js';

describe('readCgroupUsage', () => {
  it('reads cgroup v2: usage_usec, memory.current less inactive_file, anon', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cg2-'));
    writeFileSync(join(root, 'cpu.stat'), 'usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n');
    writeFileSync(join(root, 'memory.current'), '1000000\n');
    writeFileSync(join(root, 'memory.stat'), 'anon 300000\nfile 600000\ninactive_file 400000\n');
    await expect(readCgroupUsage(root)).resolves.toEqual({
      usageCoreNanoSeconds: 2_500_000,
      workingSetBytes: 600_000,
      usageBytes: 1_000_000,
      rssBytes: 300_000,
    });
  });

  it('reads cgroup v1: cpuacct.usage and the total_ memory.stat fields', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cg1-'));
    mkdirSync(join(root, 'cpuacct'));
    mkdirSync(join(root, 'memory'));
    writeFileSync(join(root, 'cpuacct', 'cpuacct.usage'), '123456789\n');
    writeFileSync(join(root, 'memory', 'memory.usage_in_bytes'), '5000\n');
    writeFileSync(join(root, 'memory', 'memory.stat'), 'rss 1\ntotal_rss 2000\ntotal_inactive_file 6000\n');
    // Inactive file pages above usage leave a working set of 0, never a negative one.
    await expect(readCgroupUsage(root)).resolves.toEqual({
      usageCoreNanoSeconds: 123_456_789,
      workingSetBytes: 0,
      usageBytes: 5000,
      rssBytes: 2000,
    });
  });

  it('fails on a directory that is no cgroup', async () => {
    await expect(readCgroupUsage(mkdtempSync(join(tmpdir(), 'none-')))).rejects.toThrow(/ENOENT/);
  });
});

describe('CpuRateCache', () => {
  it('has no rate for a first sample, then the rate over the window', () => {
    const rates = new CpuRateCache();
    expect(rates.rate('c', 10e9, 1e9)).toBeUndefined();
    // 0.5 s of CPU in 2 s: a quarter core.
    expect(rates.rate('c', 12e9, 1.5e9)).toBe(250_000_000);
  });

  it('keeps the previous rate for a window under a second and restarts after a counter reset', () => {
    const rates = new CpuRateCache();
    rates.rate('c', 0, 0);
    expect(rates.rate('c', 1e9, 1e9)).toBe(1e9);
    expect(rates.rate('c', 1.2e9, 1.1e9)).toBe(1e9);
    expect(rates.rate('c', 3e9, 10)).toBeUndefined();
    expect(rates.rate('c', 4e9, 0.5e9 + 10)).toBe(0.5e9);
  });

  it('forgets keys not retained', () => {
    const rates = new CpuRateCache();
    rates.rate('gone', 0, 0);
    rates.retain(new Set());
    expect(rates.rate('gone', 2e9, 2e9)).toBeUndefined();
  });
});

const sandbox = (id: string, name: string, state: PodSandbox['state'] = 'SANDBOX_READY'): PodSandbox => ({
  id,
  metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
  state,
  createdAt: Date.UTC(2026, 0, 1) * 1e6,
  labels: {
    'io.kubernetes.pod.name': name,
    'io.kubernetes.pod.namespace': 'default',
    'io.kubernetes.pod.uid': `uid-${name}`,
  },
  annotations: {},
  runtimeHandler: '',
});

const container = (
  id: string,
  sandboxId: string,
  name: string,
  state: Container['state'] = 'CONTAINER_RUNNING',
): Container => ({
  id,
  podSandboxId: sandboxId,
  metadata: { name, attempt: 0 },
  image: null,
  imageRef: '',
  state,
  createdAt: Date.UTC(2026, 0, 1, 0, 0, 5) * 1e6,
  labels: { 'io.kubernetes.container.name': name },
  annotations: {},
  imageId: '',
});

const stats = (id: string, timeS: number, cpuNs: number, workingSet: number): ContainerStats => ({
  attributes: { id, metadata: null, labels: {}, annotations: {} },
  cpu: { timestamp: timeS * 1e9, usageCoreNanoSeconds: { value: cpuNs }, usageNanoCores: null },
  memory: {
    timestamp: timeS * 1e9,
    workingSetBytes: { value: workingSet },
    availableBytes: null,
    usageBytes: { value: workingSet + 10 },
    rssBytes: null,
    pageFaults: null,
    majorPageFaults: null,
  },
});

describe('buildSummary', () => {
  const base = {
    nodeName: 'n1',
    nodeStartTime: new Date(Date.UTC(2026, 0, 1)),
    memoryCapacityBytes: 10_000,
    sandboxes: [sandbox('s1', 'web'), sandbox('s2', 'old', 'SANDBOX_NOTREADY')],
  };

  it('reports node and per-container figures, pods as the sums of their running containers', () => {
    const rates = new CpuRateCache();
    const containers = [
      container('a', 's1', 'app'),
      container('b', 's1', 'side'),
      container('x', 's1', 'done', 'CONTAINER_EXITED'),
    ];
    const first = buildSummary(
      {
        ...base,
        now: new Date(Date.UTC(2026, 0, 1, 1)),
        node: { usageCoreNanoSeconds: 100e9, workingSetBytes: 4000, usageBytes: 5000, rssBytes: 3000 },
        containers,
        stats: [stats('a', 100, 1e9, 100), stats('b', 100, 2e9, 200), stats('x', 100, 9e9, 900)],
      },
      rates,
    );
    expect(first.node.cpu).toEqual({ time: '2026-01-01T01:00:00Z', usageCoreNanoSeconds: 100e9 });
    expect(first.node.memory).toMatchObject({ workingSetBytes: 4000, availableBytes: 6000 });
    expect(first.pods).toHaveLength(1);
    expect(first.pods[0]!.podRef).toEqual({ name: 'web', namespace: 'default', uid: 'uid-web' });
    expect(first.pods[0]!.containers.map((c) => c.name)).toEqual(['app', 'side']);
    expect(first.pods[0]!.cpu).toEqual({ time: '1970-01-01T00:01:40Z', usageCoreNanoSeconds: 3e9 });
    expect(first.pods[0]!.memory).toMatchObject({ workingSetBytes: 300, usageBytes: 320 });

    const second = buildSummary(
      {
        ...base,
        now: new Date(Date.UTC(2026, 0, 1, 1, 0, 10)),
        node: { usageCoreNanoSeconds: 115e9, workingSetBytes: 4000, usageBytes: 5000, rssBytes: 3000 },
        containers,
        stats: [stats('a', 110, 6e9, 100), stats('b', 110, 3e9, 200)],
      },
      rates,
    );
    expect(second.node.cpu?.usageNanoCores).toBe(1.5e9);
    const [app, side] = second.pods[0]!.containers;
    expect(app!.cpu?.usageNanoCores).toBe(0.5e9);
    expect(side!.cpu?.usageNanoCores).toBe(0.1e9);
    expect(second.pods[0]!.cpu?.usageNanoCores).toBe(0.6e9);
    expect(app!.startTime).toBe('2026-01-01T00:00:05Z');
  });

  it('takes the runtime usageNanoCores when it reports one', () => {
    const withRate = stats('a', 1, 1e9, 1);
    withRate.cpu!.usageNanoCores = { value: 42 };
    const summary = buildSummary(
      {
        ...base,
        now: new Date(0),
        node: { usageCoreNanoSeconds: 0, workingSetBytes: 0, usageBytes: 0, rssBytes: 0 },
        containers: [container('a', 's1', 'app')],
        stats: [withRate],
      },
      new CpuRateCache(),
    );
    expect(summary.pods[0]!.containers[0]!.cpu?.usageNanoCores).toBe(42);
  });
});
