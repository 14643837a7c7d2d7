// The node's own CPU and memory figures from its cgroup (v2 or v1), as cAdvisor reads the root
// cgroup for the Summary API's node stats (pkg/kubelet/stats, cadvisor's libcontainer handler).
// In a node container with a private cgroup namespace, /sys/fs/cgroup is the node's cgroup.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CgroupUsage {
  readonly usageCoreNanoSeconds: number;
  /** Usage less inactive file pages: what the kubelet calls the working set. */
  readonly workingSetBytes: number;
  readonly usageBytes: number;
  readonly rssBytes: number;
}

/** `key value` lines (cpu.stat, memory.stat) as numbers. */
export function parseFlatKeyed(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && /^\d+$/.test(value)) values.set(key, Number(value));
  }
  return values;
}

function workingSet(usage: number, inactiveFile: number): number {
  return usage > inactiveFile ? usage - inactiveFile : 0;
}

async function readV2(root: string): Promise<CgroupUsage> {
  const [cpuStat, memoryCurrent, memoryStat] = await Promise.all([
    readFile(join(root, 'cpu.stat'), 'utf8'),
    readFile(join(root, 'memory.current'), 'utf8'),
    readFile(join(root, 'memory.stat'), 'utf8'),
  ]);
  const cpu = parseFlatKeyed(cpuStat);
  const memory = parseFlatKeyed(memoryStat);
  const usage = Number(memoryCurrent.trim());
  return {
    usageCoreNanoSeconds: (cpu.get('usage_usec') ?? 0) * 1000,
    workingSetBytes: workingSet(usage, memory.get('inactive_file') ?? 0),
    usageBytes: usage,
    rssBytes: memory.get('anon') ?? 0,
  };
}

async function readV1(root: string): Promise<CgroupUsage> {
  const [cpuUsage, memoryUsage, memoryStat] = await Promise.all([
    readFile(join(root, 'cpuacct', 'cpuacct.usage'), 'utf8'),
    readFile(join(root, 'memory', 'memory.usage_in_bytes'), 'utf8'),
    readFile(join(root, 'memory', 'memory.stat'), 'utf8'),
  ]);
  const memory = parseFlatKeyed(memoryStat);
  const usage = Number(memoryUsage.trim());
  return {
    usageCoreNanoSeconds: Number(cpuUsage.trim()),
    workingSetBytes: workingSet(usage, memory.get('total_inactive_file') ?? 0),
    usageBytes: usage,
    rssBytes: memory.get('total_rss') ?? 0,
  };
}

/** The usage of the cgroup tree at `root` (the unified hierarchy when `cpu.stat` is there). */
export async function readCgroupUsage(root: string): Promise<CgroupUsage> {
  try {
    return await readV2(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return readV1(root);
  }
}
