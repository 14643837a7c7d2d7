// The agent's node reporting: capacity from cgroup/proc files, conditions with the kubelet's
// reasons and transition times, and the Node object it registers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNodeResources } from '../../../src/agent/node/capacity.js';
import { nodeConditions, sameConditions } from '../../../src/agent/node/conditions.js';
import { microTime } from '../../../src/agent/node/lease.js';
import { goArch, initialNode, systemInfo } from '../../../src/agent/node/node-object.js';
import { allocatableLags, reportedAllocatable } from '../../../src/agent/node/node-status.js';
import { tempDir } from '../../support/temp.js';

function fixture(files: Record<string, string>): string {
  const root = tempDir('tkube-agent-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const MEMINFO = 'MemTotal:        8148232 kB\nMemFree:         1000000 kB\n';

describe('node capacity', () => {
  it('reports CPUs and MemTotal when the node cgroup has no limits', async () => {
    const root = fixture({
      'proc/meminfo': MEMINFO,
      'cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      'cgroup/cpu/cpu.cfs_period_us': '100000\n',
      'cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
    });
    const { capacity, allocatable } = await readNodeResources({
      procRoot: join(root, 'proc'),
      cgroupRoot: join(root, 'cgroup'),
      nodefsPath: root,
      onlineCpus: 2,
    });
    expect(capacity.cpu).toBe('2');
    expect(capacity.memory).toBe('8148232Ki');
    expect(capacity.pods).toBe('110');
    expect(capacity['hugepages-2Mi']).toBe('0');
    // Hard eviction threshold memory.available<100Mi comes off allocatable.
    expect(allocatable.memory).toBe(`${8148232 - 102400}Ki`);
    const storageKi = BigInt(capacity['ephemeral-storage']!.replace('Ki', ''));
    expect(BigInt(allocatable['ephemeral-storage']!)).toBe(
      storageKi * 1024n - (storageKi * 1024n * 10n) / 100n,
    );
  });

  it('caps CPU and memory by the node container limits (docker --cpus, --memory)', async () => {
    const root = fixture({
      'proc/meminfo': MEMINFO,
      'cgroup/cpu/cpu.cfs_quota_us': '150000\n',
      'cgroup/cpu/cpu.cfs_period_us': '100000\n',
      'cgroup/memory/memory.limit_in_bytes': String(2 * 1024 * 1024 * 1024),
    });
    const { capacity } = await readNodeResources({
      procRoot: join(root, 'proc'),
      cgroupRoot: join(root, 'cgroup'),
      nodefsPath: root,
      onlineCpus: 4,
    });
    expect(capacity.cpu).toBe('1500m');
    expect(capacity.memory).toBe('2097152Ki');
  });
});

describe('node conditions', () => {
  const healthy = { notReadyReasons: [], memoryPressure: false, diskPressure: false, pidPressure: false };

  it("uses the kubelet's types, order, reasons and messages", () => {
    const conditions = nodeConditions(healthy, undefined, new Date('2026-01-02T03:04:05.678Z'));
    expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
      ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
    ]);
    expect(conditions[0]!.lastHeartbeatTime).toBe('2026-01-02T03:04:05Z');
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const first = nodeConditions(
      { ...healthy, notReadyReasons: ['container runtime is down'] },
      undefined,
      new Date('2026-01-01T00:00:00Z'),
    );
    const ready = first.find((c) => c.type === 'Ready')!;
    expect([ready.status, ready.reason, ready.message]).toEqual([
      'False',
      'KubeletNotReady',
      'container runtime is down',
    ]);
    const later = nodeConditions(healthy, first, new Date('2026-01-01T00:00:30Z'));
    expect(later.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe('2026-01-01T00:00:30Z');
    expect(later.find((c) => c.type === 'MemoryPressure')!.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(sameConditions(later, first)).toBe(false);
    expect(sameConditions(nodeConditions(healthy, later, new Date('2026-01-01T00:01:00Z')), later)).toBe(
      true,
    );
  });
});

describe('the registered Node', () => {
  it('carries the well-known labels, role labels, addresses and node info', () => {
    const info = systemInfo({
      machineID: 'm',
      systemUUID: 'u',
      bootID: 'b',
      kernelVersion: '6.1.0',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.6.20',
    });
    const node = initialNode(
      {
        name: 'c1-node-0',
        internalIP: '172.30.0.10',
        labels: { 'node-role.kubernetes.io/control-plane': '' },
        taints: [],
      },
      { resources: { capacity: { cpu: '2' }, allocatable: { cpu: '2' } }, systemInfo: info },
    );
    expect(node.metadata!.labels).toEqual({
      'beta.kubernetes.io/arch': goArch(),
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': goArch(),
      'kubernetes.io/hostname': 'c1-node-0',
      'kubernetes.io/os': 'linux',
      'node-role.kubernetes.io/control-plane': '',
    });
    expect(node.status!.addresses).toEqual([
      { type: 'InternalIP', address: '172.30.0.10' },
      { type: 'Hostname', address: 'c1-node-0' },
    ]);
    expect(node.status!.nodeInfo).toMatchObject({ kubeletVersion: 'v1.33.0', operatingSystem: 'linux' });
    expect(node.status!.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect(node.spec).toEqual({});
  });

  it('writes MicroTime with microseconds', () => {
    expect(microTime(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678000Z');
  });
});

describe('node allocatable', () => {
  const own = { cpu: '8', memory: '32Gi', pods: '110' };

  it('copies capacity entries the kubelet does not own, such as a patched extended resource', () => {
    const status = {
      capacity: { ...own, 'example.com/gpu': '4', 'hugepages-2Mi': '0' },
      allocatable: { ...own },
    };
    expect(reportedAllocatable(own, status)).toEqual({
      ...own,
      'example.com/gpu': '4',
      'hugepages-2Mi': '0',
    });
  });

  it('removes extended resources gone from capacity, and only those', () => {
    const status = {
      capacity: { ...own },
      allocatable: { ...own, 'example.com/gpu': '4', 'example.com/fpga': '1', 'kubernetes.io/custom': '1' },
    };
    expect(reportedAllocatable(own, status)).toEqual({
      ...own,
      'example.com/gpu': null,
      'example.com/fpga': null,
    });
  });

  it('keeps its own figures over what the node says (a user cannot raise cpu this way)', () => {
    const status = { capacity: { ...own, cpu: '64' }, allocatable: { ...own, cpu: '64' } };
    expect(reportedAllocatable(own, status)).toEqual(own);
    expect(reportedAllocatable(own, undefined)).toEqual(own);
  });

  it('lags when capacity gained or lost an entry the kubelet does not own, not over its own figures', () => {
    const gpu = { 'example.com/gpu': '2' };
    expect(allocatableLags(own, { capacity: { ...own, ...gpu }, allocatable: { ...own } })).toBe(true);
    expect(allocatableLags(own, { capacity: { ...own, ...gpu }, allocatable: { ...own, ...gpu } })).toBe(
      false,
    );
    expect(allocatableLags(own, { capacity: { ...own }, allocatable: { ...own, ...gpu } })).toBe(true);
    // A pods figure the CIDR caps later, say, is the kubelet's own business, not a lag.
    expect(allocatableLags(own, { capacity: { ...own }, allocatable: { ...own, pods: '14' } })).toBe(false);
    expect(allocatableLags(own, undefined)).toBe(false);
  });
});
