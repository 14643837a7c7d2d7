// The kubelet's Summary API (/stats/summary, k8s.io/kubelet/pkg/apis/stats/v1alpha1): node CPU
// and memory from the node's cgroup, pod and container figures from CRI ListContainerStats, as
// the kubelet's CRI stats provider builds them (pkg/kubelet/stats/cri_stats_provider.go). Only
// CPU and memory: network, filesystem and rlimit stats are not reported. A pod's figures are
// the sums of its running containers'.
import type { Container, ContainerStats, PodSandbox } from '../cri/types.js';
import {
  CONTAINER_NAME_LABEL,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_UID_LABEL,
} from '../runtime/labels.js';
import type { CgroupUsage } from './cgroup-usage.js';
import type { CpuRateCache } from './cpu-rate.js';

export interface CpuStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface ContainerSummary {
  name: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
}

export interface PodSummary {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerSummary[];
  cpu?: CpuStats;
  memory?: MemoryStats;
}

export interface Summary {
  node: {
    nodeName: string;
    startTime: string;
    cpu?: CpuStats;
    memory?: MemoryStats;
  };
  pods: PodSummary[];
}

export interface SummaryInputs {
  readonly nodeName: string;
  readonly nodeStartTime: Date;
  /** When the node's cgroup was read. */
  readonly now: Date;
  readonly node: CgroupUsage;
  /** The node's memory capacity, for availableBytes; absent leaves it out. */
  readonly memoryCapacityBytes?: number;
  readonly sandboxes: readonly PodSandbox[];
  readonly containers: readonly Container[];
  readonly stats: readonly ContainerStats[];
}

/** metav1.Time's RFC 3339 form, to the second as Go marshals it. */
function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function fromNanos(ns: number): Date {
  return new Date(Math.floor(ns / 1e6));
}

function containerCpu(stats: ContainerStats, rates: CpuRateCache, id: string): CpuStats | undefined {
  const cpu = stats.cpu;
  if (!cpu?.usageCoreNanoSeconds) return undefined;
  const cumulative = cpu.usageCoreNanoSeconds.value;
  const nanoCores = cpu.usageNanoCores?.value ?? rates.rate(id, cpu.timestamp, cumulative);
  return {
    time: rfc3339(fromNanos(cpu.timestamp)),
    ...(nanoCores === undefined ? {} : { usageNanoCores: nanoCores }),
    usageCoreNanoSeconds: cumulative,
  };
}

function containerMemory(stats: ContainerStats): MemoryStats | undefined {
  const memory = stats.memory;
  if (!memory?.workingSetBytes) return undefined;
  return {
    time: rfc3339(fromNanos(memory.timestamp)),
    workingSetBytes: memory.workingSetBytes.value,
    ...(memory.usageBytes ? { usageBytes: memory.usageBytes.value } : {}),
    ...(memory.rssBytes ? { rssBytes: memory.rssBytes.value } : {}),
    ...(memory.availableBytes ? { availableBytes: memory.availableBytes.value } : {}),
    ...(memory.pageFaults ? { pageFaults: memory.pageFaults.value } : {}),
    ...(memory.majorPageFaults ? { majorPageFaults: memory.majorPageFaults.value } : {}),
  };
}

function sumCpu(parts: readonly (CpuStats | undefined)[]): CpuStats | undefined {
  const present = parts.filter((p): p is CpuStats => p !== undefined);
  if (present.length === 0) return undefined;
  const everyRate = present.every((p) => p.usageNanoCores !== undefined);
  return {
    time: present
      .map((p) => p.time)
      .sort()
      .at(-1)!,
    ...(everyRate ? { usageNanoCores: present.reduce((s, p) => s + (p.usageNanoCores ?? 0), 0) } : {}),
    usageCoreNanoSeconds: present.reduce((s, p) => s + (p.usageCoreNanoSeconds ?? 0), 0),
  };
}

function sumMemory(parts: readonly (MemoryStats | undefined)[]): MemoryStats | undefined {
  const present = parts.filter((p): p is MemoryStats => p !== undefined);
  if (present.length === 0) return undefined;
  const total = (pick: (m: MemoryStats) => number | undefined) =>
    present.reduce((s, p) => s + (pick(p) ?? 0), 0);
  return {
    time: present
      .map((p) => p.time)
      .sort()
      .at(-1)!,
    workingSetBytes: total((m) => m.workingSetBytes),
    usageBytes: total((m) => m.usageBytes),
    rssBytes: total((m) => m.rssBytes),
  };
}

/** The Summary at this moment; `rates` turns cumulative CPU into usageNanoCores across calls. */
export function buildSummary(inputs: SummaryInputs, rates: CpuRateCache): Summary {
  const nodeTimeNs = inputs.now.getTime() * 1e6;
  const nodeRate = rates.rate('/', nodeTimeNs, inputs.node.usageCoreNanoSeconds);
  const time = rfc3339(inputs.now);
  const statsById = new Map(inputs.stats.map((s) => [s.attributes?.id ?? '', s]));
  const running = inputs.containers.filter((c) => c.state === 'CONTAINER_RUNNING');
  const live = new Set<string>(['/']);
  const pods: PodSummary[] = [];
  for (const sandbox of inputs.sandboxes) {
    if (sandbox.state !== 'SANDBOX_READY') continue;
    const containers: ContainerSummary[] = [];
    for (const container of running) {
      if (container.podSandboxId !== sandbox.id) continue;
      const stats = statsById.get(container.id);
      live.add(container.id);
      containers.push({
        name: container.labels[CONTAINER_NAME_LABEL] ?? container.metadata?.name ?? '',
        startTime: rfc3339(fromNanos(container.createdAt)),
        ...(stats
          ? withDefined({ cpu: containerCpu(stats, rates, container.id), memory: containerMemory(stats) })
          : {}),
      });
    }
    containers.sort((a, b) => a.name.localeCompare(b.name));
    pods.push({
      podRef: {
        name: sandbox.labels[POD_NAME_LABEL] ?? sandbox.metadata?.name ?? '',
        namespace: sandbox.labels[POD_NAMESPACE_LABEL] ?? sandbox.metadata?.namespace ?? '',
        uid: sandbox.labels[POD_UID_LABEL] ?? sandbox.metadata?.uid ?? '',
      },
      startTime: rfc3339(fromNanos(sandbox.createdAt)),
      containers,
      ...withDefined({
        cpu: sumCpu(containers.map((c) => c.cpu)),
        memory: sumMemory(containers.map((c) => c.memory)),
      }),
    });
  }
  rates.retain(live);
  const node = inputs.node;
  return {
    node: {
      nodeName: inputs.nodeName,
      startTime: rfc3339(inputs.nodeStartTime),
      cpu: {
        time,
        ...(nodeRate === undefined ? {} : { usageNanoCores: nodeRate }),
        usageCoreNanoSeconds: node.usageCoreNanoSeconds,
      },
      memory: {
        time,
        ...(inputs.memoryCapacityBytes === undefined
          ? {}
          : { availableBytes: Math.max(0, inputs.memoryCapacityBytes - node.workingSetBytes) }),
        usageBytes: node.usageBytes,
        workingSetBytes: node.workingSetBytes,
        rssBytes: node.rssBytes,
      },
    },
    pods,
  };
}

function withDefined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) out[key as keyof T] = value as T[keyof T];
  return out;
}
