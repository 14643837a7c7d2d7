// The pod-level cgroup (`/kubepods/[<qos>/]pod<uid>`) with the pod's total limits, as the
// kubelet's pod container manager sets them before the sandbox starts (pkg/kubelet/cm
// ResourceConfigForPod). CRI in containerd 1.6 has no pod resources, and runc only creates the
// parent directories, so the agent writes the cgroup files itself (v1 or v2).
import { existsSync } from 'node:fs';
import { mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Quantity } from '../../../api/quantity.js';
import type { Container, Pod } from '../../../api/types/core-v1.generated.js';
import { isRestartableInitContainer } from '../runtime/restart-policy.js';
import { milliCpuToQuota, milliCpuToShares, podCgroupParent, podQos } from './resources.js';

const QUOTA_PERIOD_US = 100_000;
export const CGROUP_ROOT = '/sys/fs/cgroup';

export interface PodCgroupConfig {
  readonly cpuShares: number;
  readonly cpuPeriodUs: number;
  /** Absent: no CPU limit. */
  readonly cpuQuotaUs?: number;
  /** Absent: no memory limit. */
  readonly memoryLimitBytes?: number;
}

interface Totals {
  cpuRequest: number;
  cpuLimit: number;
  memoryLimit: number;
  cpuLimited: boolean;
  memoryLimited: boolean;
}

function amount(value: unknown, milli: boolean): number {
  const parsed = value === undefined ? undefined : Quantity.tryFromJson(value);
  if (!parsed) return 0;
  return Number(milli ? parsed.milliValue() : parsed.value());
}

function ofContainer(container: Container): Totals {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  return {
    cpuRequest: amount(requests.cpu ?? limits.cpu, true),
    cpuLimit: amount(limits.cpu, true),
    memoryLimit: amount(limits.memory, false),
    cpuLimited: limits.cpu !== undefined && amount(limits.cpu, true) > 0,
    memoryLimited: limits.memory !== undefined && amount(limits.memory, false) > 0,
  };
}

function sum(a: Totals, b: Totals): Totals {
  return {
    cpuRequest: a.cpuRequest + b.cpuRequest,
    cpuLimit: a.cpuLimit + b.cpuLimit,
    memoryLimit: a.memoryLimit + b.memoryLimit,
    cpuLimited: a.cpuLimited && b.cpuLimited,
    memoryLimited: a.memoryLimited && b.memoryLimited,
  };
}

function max(a: Totals, b: Totals): Totals {
  return {
    cpuRequest: Math.max(a.cpuRequest, b.cpuRequest),
    cpuLimit: Math.max(a.cpuLimit, b.cpuLimit),
    memoryLimit: Math.max(a.memoryLimit, b.memoryLimit),
    cpuLimited: a.cpuLimited && b.cpuLimited,
    memoryLimited: a.memoryLimited && b.memoryLimited,
  };
}

const NONE: Totals = { cpuRequest: 0, cpuLimit: 0, memoryLimit: 0, cpuLimited: true, memoryLimited: true };

/**
 * The pod's totals (resource.PodRequests/PodLimits): the app containers and sidecars together,
 * or an init container with the sidecars started before it if that is more, plus the overhead.
 */
function podTotals(pod: Pod): Totals {
  let sidecars = NONE;
  let initPeak = NONE;
  for (const container of pod.spec?.initContainers ?? []) {
    if (isRestartableInitContainer(container)) sidecars = sum(sidecars, ofContainer(container));
    else initPeak = max(initPeak, sum(sidecars, ofContainer(container)));
  }
  let total = sidecars;
  for (const container of pod.spec?.containers ?? []) total = sum(total, ofContainer(container));
  // An init container's missing limit leaves the pod unlimited, as one of the app containers' does.
  total = {
    ...max(total, initPeak),
    cpuLimited: total.cpuLimited && initPeak.cpuLimited,
    memoryLimited: total.memoryLimited && initPeak.memoryLimited,
  };
  const overhead = pod.spec?.overhead ?? {};
  return {
    ...total,
    cpuRequest: total.cpuRequest + amount(overhead.cpu, true),
    cpuLimit: total.cpuLimit + amount(overhead.cpu, true),
    memoryLimit: total.memoryLimit + amount(overhead.memory, false),
  };
}

/** What the pod's cgroup gets: shares from the requests; quota and memory when every container limits them. */
export function podCgroupConfig(pod: Pod): PodCgroupConfig {
  const qos = podQos(pod);
  if (qos === 'BestEffort') return { cpuShares: milliCpuToShares(0), cpuPeriodUs: QUOTA_PERIOD_US };
  const totals = podTotals(pod);
  const guaranteed = qos === 'Guaranteed';
  return {
    cpuShares: milliCpuToShares(totals.cpuRequest),
    cpuPeriodUs: QUOTA_PERIOD_US,
    ...((guaranteed || totals.cpuLimited) && totals.cpuLimit > 0
      ? { cpuQuotaUs: milliCpuToQuota(totals.cpuLimit) }
      : {}),
    ...((guaranteed || totals.memoryLimited) && totals.memoryLimit > 0
      ? { memoryLimitBytes: totals.memoryLimit }
      : {}),
  };
}

/** cgroup v2's cpu.weight for v1 shares (the kubelet's CpuSharesToCpuWeight). */
export function sharesToWeight(shares: number): number {
  return 1 + Math.floor(((shares - 2) * 9999) / 262_142);
}

/** The cgroup files to write, relative to the cgroup root, for this machine's cgroup version. */
export function podCgroupFiles(pod: Pod, cgroupV2: boolean): [path: string, value: string][] {
  const parent = podCgroupParent(pod).replace(/^\//, '');
  const config = podCgroupConfig(pod);
  if (cgroupV2) {
    return [
      [join(parent, 'cpu.weight'), String(sharesToWeight(config.cpuShares))],
      [join(parent, 'cpu.max'), `${config.cpuQuotaUs ?? 'max'} ${config.cpuPeriodUs}`],
      [join(parent, 'memory.max'), String(config.memoryLimitBytes ?? 'max')],
    ];
  }
  return [
    [join('cpu', parent, 'cpu.shares'), String(config.cpuShares)],
    [join('cpu', parent, 'cpu.cfs_period_us'), String(config.cpuPeriodUs)],
    [join('cpu', parent, 'cpu.cfs_quota_us'), String(config.cpuQuotaUs ?? -1)],
    [join('memory', parent, 'memory.limit_in_bytes'), String(config.memoryLimitBytes ?? -1)],
  ];
}

/**
 * Creates the pod's cgroup with its limits before its sandbox starts; runc then nests the
 * containers' cgroups inside it. On cgroup v2 each new level delegates cpu and memory.
 */
export async function applyPodCgroup(pod: Pod, root = CGROUP_ROOT): Promise<void> {
  const cgroupV2 = existsSync(join(root, 'cgroup.controllers'));
  for (const [path, value] of podCgroupFiles(pod, cgroupV2)) {
    const dir = join(root, path, '..');
    if (cgroupV2) await delegate(root, dir);
    else await mkdir(dir, { recursive: true });
    await writeFile(join(root, path), value);
  }
}

/**
 * Removes the pod's cgroup once its containers and sandbox are gone (the pod container
 * manager's Destroy): on cgroup v1 in every hierarchy, since runc made the pod's directory in
 * each. A cgroup that still holds processes cannot go: that is an error the caller reports.
 */
export async function removePodCgroup(pod: Pod, root = CGROUP_ROOT): Promise<void> {
  const parent = podCgroupParent(pod).replace(/^\//, '');
  const dirs = existsSync(join(root, 'cgroup.controllers'))
    ? [join(root, parent)]
    : (await readdir(root)).map((hierarchy) => join(root, hierarchy, parent));
  for (const dir of dirs) {
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      // Absent (a hierarchy runc left alone, or a co-mounted one already removed): nothing to do.
      if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') throw error;
    });
  }
}

async function delegate(root: string, dir: string): Promise<void> {
  const levels = dir.slice(root.length).split('/').filter(Boolean);
  let current = root;
  for (const level of levels) {
    await writeFile(join(current, 'cgroup.subtree_control'), '+cpu +memory').catch(() => undefined);
    current = join(current, level);
    await mkdir(current, { recursive: true });
  }
}
