// A kubelet's /stats/summary read into metrics points, as metrics-server's summary decoder did
// (pkg/scraper/client/summary): a node or container without cumulative CPU or working set, or
// with unparsable times, is left out (metrics-server logs and skips it).
import type { MetricsPoint, NodeScrape, PodScrape } from './storage.js';

/** The fields read from stats/v1alpha1's Summary (the kubelet's JSON). */
interface CpuStats {
  time?: string;
  usageCoreNanoSeconds?: number;
}
interface MemoryStats {
  time?: string;
  workingSetBytes?: number;
}
interface Stats {
  startTime?: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
}
export interface SummaryJson {
  node?: Stats & { nodeName?: string };
  pods?: (Stats & {
    podRef?: { name?: string; namespace?: string };
    containers?: (Stats & { name?: string })[];
  })[];
}

function pointOf(stats: Stats | undefined): MetricsPoint | undefined {
  const cpu = stats?.cpu;
  const memory = stats?.memory;
  if (cpu?.usageCoreNanoSeconds === undefined || memory?.workingSetBytes === undefined) return undefined;
  const timestampMs = Date.parse(cpu.time ?? '');
  const startTimeMs = Date.parse(stats?.startTime ?? '');
  if (Number.isNaN(timestampMs) || Number.isNaN(startTimeMs)) return undefined;
  return {
    startTimeMs,
    timestampMs,
    cumulativeCpuNs: cpu.usageCoreNanoSeconds,
    memoryBytes: memory.workingSetBytes,
  };
}

/** The node's point and its pods' container points; undefined without a usable node point. */
export function decodeSummary(summary: SummaryJson): NodeScrape | undefined {
  const node = pointOf(summary.node);
  if (!node) return undefined;
  const pods: PodScrape[] = [];
  for (const pod of summary.pods ?? []) {
    const name = pod.podRef?.name;
    const namespace = pod.podRef?.namespace;
    if (!name || !namespace) continue;
    const containers = new Map<string, MetricsPoint>();
    for (const container of pod.containers ?? []) {
      const point = pointOf(container);
      if (container.name && point) containers.set(container.name, point);
    }
    if (containers.size > 0) pods.push({ namespace, name, containers });
  }
  return { node, pods };
}
