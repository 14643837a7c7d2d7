// What a simulated node (`--fake-nodes`, providers/fake) reports in place of a kubelet Summary: it
// runs no containers, so each running container of a Running pod bound to it is taken to use its
// requests (a small default where it requests nothing), and the node that sum plus a system share.
// Containers count CPU from their start (a steady rate); the node keeps a cumulative counter that
// advances at its current rate between reads, as a real cgroup counter would.
import { Quantity } from '../../api/quantity.js';
import type { Container, Node, Pod } from '../../api/types/core-v1.generated.js';
import type { MetricsPoint, NodeScrape, PodScrape } from './storage.js';

/** A container that requests nothing: a light process. */
export const DEFAULT_CONTAINER_CPU_NANOCORES = 1_000_000; // 1m
export const DEFAULT_CONTAINER_MEMORY_BYTES = 8 * 1024 * 1024;
/** The node's own share (its kubelet and runtime). */
export const NODE_SYSTEM_CPU_NANOCORES = 50_000_000; // 50m
export const NODE_SYSTEM_MEMORY_BYTES = 256 * 1024 * 1024;

function requested(container: Container, resource: 'cpu' | 'memory'): Quantity | undefined {
  const value = container.resources?.requests?.[resource];
  return value === undefined ? undefined : Quantity.tryFromJson(value);
}

/** The container's simulated CPU (nanocores) and working set (bytes). */
export function simulatedContainerUsage(container: Container): { cpuNanoCores: number; memoryBytes: number } {
  const cpu = requested(container, 'cpu');
  const memory = requested(container, 'memory');
  return {
    cpuNanoCores: cpu && !cpu.isZero() ? Number(cpu.scaledValue(-9)) : DEFAULT_CONTAINER_CPU_NANOCORES,
    memoryBytes: memory && !memory.isZero() ? Number(memory.value()) : DEFAULT_CONTAINER_MEMORY_BYTES,
  };
}

function timeMs(text: string | undefined): number | undefined {
  const ms = Date.parse(text ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

/** The running containers of a Running pod, each with when it started. */
function runningContainers(pod: Pod): { container: Container; startMs: number }[] {
  if (pod.status?.phase !== 'Running') return [];
  const statuses = new Map((pod.status.containerStatuses ?? []).map((status) => [status.name, status]));
  return (pod.spec?.containers ?? []).flatMap((container) => {
    const startMs = timeMs(statuses.get(container.name)?.state?.running?.startedAt);
    return startMs === undefined ? [] : [{ container, startMs }];
  });
}

interface NodeCounter {
  startMs: number;
  timestampMs: number;
  cumulativeCpuNs: number;
}

export class SimulatedUsage {
  private readonly counters = new Map<string, NodeCounter>();

  /** The scrape a simulated node's kubelet would give at `nowMs`. */
  scrape(node: Node, pods: readonly Pod[], nowMs = Date.now()): NodeScrape {
    const nodeName = node.metadata?.name ?? '';
    const podScrapes: PodScrape[] = [];
    let cpuNanoCores = NODE_SYSTEM_CPU_NANOCORES;
    let memoryBytes = NODE_SYSTEM_MEMORY_BYTES;
    for (const pod of pods) {
      if (pod.spec?.nodeName !== nodeName) continue;
      const containers = new Map<string, MetricsPoint>();
      for (const { container, startMs } of runningContainers(pod)) {
        const usage = simulatedContainerUsage(container);
        cpuNanoCores += usage.cpuNanoCores;
        memoryBytes += usage.memoryBytes;
        containers.set(container.name, {
          startTimeMs: startMs,
          timestampMs: nowMs,
          cumulativeCpuNs: (usage.cpuNanoCores * Math.max(0, nowMs - startMs)) / 1e3,
          memoryBytes: usage.memoryBytes,
        });
      }
      if (containers.size > 0) {
        podScrapes.push({
          namespace: pod.metadata?.namespace ?? '',
          name: pod.metadata?.name ?? '',
          containers,
        });
      }
    }
    const counter = this.advance(nodeName, node, cpuNanoCores, nowMs);
    return {
      node: {
        startTimeMs: counter.startMs,
        timestampMs: nowMs,
        cumulativeCpuNs: counter.cumulativeCpuNs,
        memoryBytes,
      },
      pods: podScrapes,
    };
  }

  /** Forgets nodes no longer simulated. */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.counters.keys()) if (!names.has(name)) this.counters.delete(name);
  }

  private advance(name: string, node: Node, cpuNanoCores: number, nowMs: number): NodeCounter {
    const counter = this.counters.get(name);
    if (!counter) {
      // The first read: as if the node had run at today's rate since it was created.
      const startMs = Math.min(timeMs(node.metadata?.creationTimestamp) ?? nowMs, nowMs);
      const first = {
        startMs,
        timestampMs: nowMs,
        cumulativeCpuNs: (cpuNanoCores * (nowMs - startMs)) / 1e3,
      };
      this.counters.set(name, first);
      return first;
    }
    counter.cumulativeCpuNs += (cpuNanoCores * Math.max(0, nowMs - counter.timestampMs)) / 1e3;
    counter.timestampMs = Math.max(counter.timestampMs, nowMs);
    return counter;
  }
}
