// What a node offers: capacity read from the node container's cgroup limits and /proc, and
// allocatable after the kubelet's default reservations.
import { readFile, statfs } from 'node:fs/promises';
import { cpus } from 'node:os';
import { Quantity } from '../../api/quantity.js';

/** The kubelet's default `--max-pods`. */
export const DEFAULT_MAX_PODS = 110;
/** Default hard eviction thresholds: memory.available<100Mi, nodefs.available<10%. */
const EVICTION_MEMORY_BYTES = 100n * 1024n * 1024n;
const EVICTION_NODEFS_PERCENT = 10n;

/** Where the readings come from; tests point these at fixture files. */
export interface CapacitySources {
  readonly procRoot: string;
  readonly cgroupRoot: string;
  /** The filesystem that holds container images and writable layers (nodefs). */
  readonly nodefsPath: string;
  readonly onlineCpus?: number;
}

export const NODE_CAPACITY_SOURCES: CapacitySources = {
  procRoot: '/proc',
  cgroupRoot: '/sys/fs/cgroup',
  nodefsPath: '/var/lib/containerd',
};

export interface NodeResources {
  readonly capacity: Record<string, string>;
  readonly allocatable: Record<string, string>;
}

/** Capacity and allocatable as the kubelet reports them (cpu in cores, memory and storage in bytes). */
export async function readNodeResources(
  sources: CapacitySources = NODE_CAPACITY_SOURCES,
): Promise<NodeResources> {
  const cpuMillis = await cpuCapacityMillis(sources);
  const memory = await memoryCapacityBytes(sources);
  const storage = await nodefsBytes(sources.nodefsPath);
  const capacity: Record<string, string> = {
    cpu: millisText(cpuMillis),
    'ephemeral-storage': `${storage / 1024n}Ki`,
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: `${memory / 1024n}Ki`,
    pods: String(DEFAULT_MAX_PODS),
  };
  const allocatableMemory = memory > EVICTION_MEMORY_BYTES ? memory - EVICTION_MEMORY_BYTES : 0n;
  const allocatableStorage = storage - (storage * EVICTION_NODEFS_PERCENT) / 100n;
  const allocatable: Record<string, string> = {
    ...capacity,
    'ephemeral-storage': String(allocatableStorage),
    memory: `${allocatableMemory / 1024n}Ki`,
  };
  return { capacity, allocatable };
}

/** CPUs online, capped by a CFS quota on the node's cgroup (docker --cpus). */
async function cpuCapacityMillis(sources: CapacitySources): Promise<bigint> {
  const online = BigInt(sources.onlineCpus ?? cpus().length) * 1000n;
  const quota = await readInteger(`${sources.cgroupRoot}/cpu/cpu.cfs_quota_us`);
  const period = await readInteger(`${sources.cgroupRoot}/cpu/cpu.cfs_period_us`);
  if (quota === undefined || period === undefined || quota <= 0n || period <= 0n) return online;
  const limited = (quota * 1000n) / period;
  return limited < online ? limited : online;
}

/** MemTotal, capped by the node cgroup's memory limit (docker --memory). */
async function memoryCapacityBytes(sources: CapacitySources): Promise<bigint> {
  const meminfo = await readFile(`${sources.procRoot}/meminfo`, 'utf8');
  const match = /^MemTotal:\s+(\d+) kB$/m.exec(meminfo);
  if (!match) throw new Error(`no MemTotal in ${sources.procRoot}/meminfo`);
  const total = BigInt(match[1]!) * 1024n;
  const limit = await readInteger(`${sources.cgroupRoot}/memory/memory.limit_in_bytes`);
  return limit !== undefined && limit > 0n && limit < total ? limit : total;
}

async function nodefsBytes(path: string): Promise<bigint> {
  const stats = await statfs(path, { bigint: true });
  return stats.blocks * stats.bsize;
}

async function readInteger(path: string): Promise<bigint | undefined> {
  try {
    const text = (await readFile(path, 'utf8')).trim();
    return /^-?\d+$/.test(text) ? BigInt(text) : undefined;
  } catch {
    return undefined;
  }
}

/** `2` for whole cores, `1500m` otherwise: the canonical quantity text. */
function millisText(millis: bigint): string {
  return Quantity.parse(`${millis}m`).canonical();
}
