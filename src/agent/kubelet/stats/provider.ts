// Reads what a Summary needs at request time (the node's cgroup; CRI sandboxes, containers and
// container stats in parallel) and keeps the CPU rate cache between calls: the kubelet's stats
// provider behind /stats/summary (pkg/kubelet/stats/provider.go).

import { CGROUP_ROOT } from '../config/pod-cgroup.js';
import type { CriClient } from '../cri/client.js';
import { readCgroupUsage } from './cgroup-usage.js';
import { CpuRateCache } from './cpu-rate.js';
import { buildSummary, type Summary } from './summary.js';

export interface StatsProviderOptions {
  readonly nodeName: string;
  readonly cri: Pick<CriClient, 'listPodSandbox' | 'listContainers' | 'listContainerStats'>;
  readonly cgroupRoot?: string;
  readonly memoryCapacityBytes?: () => number | undefined;
}

export class StatsProvider {
  private readonly rates = new CpuRateCache();
  private readonly startTime = new Date();

  constructor(private readonly options: StatsProviderOptions) {}

  async summary(): Promise<Summary> {
    const { cri } = this.options;
    const [node, sandboxes, containers, stats] = await Promise.all([
      readCgroupUsage(this.options.cgroupRoot ?? CGROUP_ROOT),
      cri.listPodSandbox(),
      cri.listContainers(),
      cri.listContainerStats(),
    ]);
    const memoryCapacityBytes = this.options.memoryCapacityBytes?.();
    return buildSummary(
      {
        nodeName: this.options.nodeName,
        nodeStartTime: this.startTime,
        now: new Date(),
        node,
        ...(memoryCapacityBytes ? { memoryCapacityBytes } : {}),
        sandboxes,
        containers,
        stats,
      },
      this.rates,
    );
  }
}
