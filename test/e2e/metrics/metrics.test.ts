// Resource metrics on real nodes (`tkube up --nodes 2`): the kubelet's /stats/summary (and the
// same figures as /metrics/resource), read with real kubectl through nodes/proxy, reports the
// node's and a CPU-burning pod's real usage from the node's cgroup and containerd's container
// stats; the built-in metrics server scrapes it and
// `kubectl top nodes` / `kubectl top pods --containers` print it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../../src/agent/kubelet/stats/summary.js';
import {
  BUSYBOX,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitFor,
  waitForPod,
} from '../kubelet/pods-support.js';

let cluster: KubeletCluster;

beforeAll(async () => {
  cluster = await startKubeletCluster('mt-metrics', 2);
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'burn', {
      containers: [{ name: 'spin', image: BUSYBOX, command: ['sh', '-c', 'while :; do :; done'] }],
    }),
  );
  await waitForPod(cluster, 'burn', isRunning, 120_000);
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

async function summaryOf(node: string): Promise<Summary> {
  const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/stats/summary`]);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Summary;
}

describe('the kubelet Summary API', () => {
  it("reports the node's CPU rate and working set, and the burning pod's container", async () => {
    const node = cluster.nodes[0]!;
    // The first read of a container has no rate yet (no earlier sample): read until both do.
    const summary = await waitFor(
      () => summaryOf(node),
      (s) =>
        (s.node.cpu?.usageNanoCores ?? 0) > 0 &&
        (s.pods.find((p) => p.podRef.name === 'burn')?.cpu?.usageNanoCores ?? 0) > 0,
      60_000,
    );
    expect(summary.node.nodeName).toBe(node);
    expect(summary.node.memory?.workingSetBytes).toBeGreaterThan(0);
    const burn = summary.pods.find((p) => p.podRef.name === 'burn')!;
    expect(burn.podRef.namespace).toBe('default');
    expect(burn.containers.map((c) => c.name)).toEqual(['spin']);
    const spin = burn.containers[0]!;
    expect(spin.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(spin.memory?.workingSetBytes).toBeGreaterThan(0);
    // The node's cgroup holds its pods: its cumulative CPU is at least the pod's.
    expect(summary.node.cpu!.usageCoreNanoSeconds!).toBeGreaterThanOrEqual(spin.cpu!.usageCoreNanoSeconds!);
    // The other node runs no such pod.
    const other = await summaryOf(cluster.nodes[1]!);
    expect(other.pods.some((p) => p.podRef.name === 'burn')).toBe(false);
  });

  it('serves the same figures as Prometheus text on /metrics/resource, as metrics-server scrapes them', async () => {
    const node = cluster.nodes[0]!;
    const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics/resource`]);
    expect(result.stderr).toBe('');
    const sample = (pattern: RegExp) => {
      const match = pattern.exec(result.stdout);
      expect(match, `${pattern} in\n${result.stdout}`).not.toBeNull();
      return { value: Number(match![1]), timeMs: Number(match![2]) };
    };
    const cpu = sample(
      /^container_cpu_usage_seconds_total\{container="spin",namespace="default",pod="burn"\} (\S+) (\d+)$/m,
    );
    // A container burning a core for a minute and more has used seconds of CPU, measured lately.
    expect(cpu.value).toBeGreaterThan(1);
    expect(Math.abs(Date.now() - cpu.timeMs)).toBeLessThan(60_000);
    expect(
      sample(
        /^container_memory_working_set_bytes\{container="spin",namespace="default",pod="burn"\} (\S+) (\d+)$/m,
      ).value,
    ).toBeGreaterThan(0);
    expect(
      sample(/^pod_cpu_usage_seconds_total\{namespace="default",pod="burn"\} (\S+) (\d+)$/m).value,
    ).toBeGreaterThanOrEqual(cpu.value);
    expect(sample(/^node_cpu_usage_seconds_total (\S+) (\d+)$/m).value).toBeGreaterThanOrEqual(cpu.value);
    expect(sample(/^node_memory_working_set_bytes (\S+) (\d+)$/m).value).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/^resource_scrape_error 0$/m);
  });
});

/** A `kubectl top` table's rows (header first), read until `accept` takes them (two scrapes, 15 s apart). */
async function topRows(args: string[], accept: (rows: string[][]) => boolean): Promise<string[][]> {
  return waitFor(
    async () => {
      const result = await cluster.kubectl(['top', ...args]);
      return result.exitCode === 0
        ? result.stdout
            .trim()
            .split('\n')
            .map((line) => line.trim().split(/\s+/))
        : [];
    },
    accept,
    75_000,
  );
}

/** `250m` → 250; a whole-core figure (`2`) → 2000. */
const millicores = (cpu: string | undefined): number =>
  cpu?.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu ?? 0) * 1000;

describe('kubectl top', () => {
  it('prints both nodes with non-zero CPU and memory, the burning one busy', async () => {
    const [burning, idle] = cluster.nodes as [string, string];
    const rows = await topRows(
      ['nodes'],
      (r) => r.some((row) => row[0] === burning) && r.some((row) => row[0] === idle),
    );
    expect(rows[0]).toEqual(['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    for (const name of [burning, idle]) {
      const [, cpu, cpuPercent, memory] = rows.find((row) => row[0] === name)!;
      expect(millicores(cpu)).toBeGreaterThan(0);
      expect(cpuPercent).toMatch(/^\d+%$/);
      expect(memory).toMatch(/^[1-9]\d*Mi$/);
    }
    // A busy loop keeps most of a core busy even on a loaded machine.
    expect(millicores(rows.find((row) => row[0] === burning)![1])).toBeGreaterThanOrEqual(100);
  });

  it("prints the burning pod's container with non-zero CPU and memory", async () => {
    const rows = await topRows(['pods', '--containers'], (r) => r.some((row) => row[0] === 'burn'));
    expect(rows[0]).toEqual(['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const [, container, cpu, memory] = rows.find((row) => row[0] === 'burn')!;
    expect(container).toBe('spin');
    expect(millicores(cpu)).toBeGreaterThanOrEqual(100);
    expect(memory).toMatch(/^\d+Mi$/);
  });
});
