import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyPodCgroup,
  podCgroupConfig,
  podCgroupFiles,
  removePodCgroup,
  sharesToWeight,
} from '../../../src/agent/kubelet/config/pod-cgroup.js';
import type { Container, Pod } from '../../../src/api/types/core-v1.generated.js';

const c = (
  name: string,
  limits?: Record<string, string>,
  requests?: Record<string, string>,
  extra: Partial<Container> = {},
): Container => ({
  name,
  image: 'i',
  resources: { ...(limits && { limits }), ...(requests && { requests }) },
  ...extra,
});
const pod = (
  qosClass: string,
  containers: Container[],
  initContainers: Container[] = [],
  overhead?: Record<string, string>,
): Pod => ({
  metadata: { uid: 'u1', name: 'p', namespace: 'default' },
  spec: { containers, initContainers, ...(overhead && { overhead }) },
  status: { qosClass },
});

describe('pod cgroup limits', () => {
  it('sums the limits of a Guaranteed pod, with its overhead', () => {
    const p = pod(
      'Guaranteed',
      [c('a', { cpu: '250m', memory: '64Mi' }), c('b', { cpu: '1', memory: '1Gi' })],
      [],
      { cpu: '50m', memory: '1Mi' },
    );
    expect(podCgroupConfig(p)).toEqual({
      cpuShares: 1331,
      cpuPeriodUs: 100_000,
      cpuQuotaUs: 130_000,
      memoryLimitBytes: (64 + 1024 + 1) * 1024 * 1024,
    });
  });

  it('limits a Burstable pod only in what every container limits', () => {
    const p = pod('Burstable', [
      c('a', { memory: '64Mi' }, { cpu: '100m' }),
      c('b', { memory: '32Mi', cpu: '500m' }),
    ]);
    expect(podCgroupConfig(p)).toEqual({
      cpuShares: 614,
      cpuPeriodUs: 100_000,
      memoryLimitBytes: 96 * 1024 * 1024,
    });
  });

  it('takes the larger of the init containers and the app containers with sidecars', () => {
    const p = pod(
      'Guaranteed',
      [c('app', { cpu: '100m', memory: '10Mi' })],
      [
        c('init', { cpu: '2', memory: '10Mi' }),
        c('side', { cpu: '100m', memory: '10Mi' }, undefined, { restartPolicy: 'Always' }),
      ],
    );
    expect(podCgroupConfig(p).cpuQuotaUs).toBe(200_000);
    expect(podCgroupConfig(p).memoryLimitBytes).toBe(20 * 1024 * 1024);
  });

  it('gives a BestEffort pod the minimum shares and no limit', () => {
    expect(podCgroupConfig(pod('BestEffort', [c('a')]))).toEqual({ cpuShares: 2, cpuPeriodUs: 100_000 });
    expect(podCgroupFiles(pod('BestEffort', [c('a')]), false)).toContainEqual([
      'memory/kubepods/besteffort/podu1/memory.limit_in_bytes',
      '-1',
    ]);
  });

  it('writes cgroup v1 and v2 files under the pod cgroup', async () => {
    const p = pod('Guaranteed', [c('a', { cpu: '250m', memory: '64Mi' })]);
    const v1 = await mkdtemp(join(tmpdir(), 'tkube-cg1-'));
    const v2 = await mkdtemp(join(tmpdir(), 'tkube-cg2-'));
    try {
      await applyPodCgroup(p, v1);
      expect(await readFile(join(v1, 'cpu/kubepods/podu1/cpu.cfs_quota_us'), 'utf8')).toBe('25000');
      expect(await readFile(join(v1, 'memory/kubepods/podu1/memory.limit_in_bytes'), 'utf8')).toBe(
        '67108864',
      );
      await writeFile(join(v2, 'cgroup.controllers'), 'cpu memory');
      await applyPodCgroup(p, v2);
      expect(await readFile(join(v2, 'kubepods/podu1/cpu.max'), 'utf8')).toBe('25000 100000');
      expect(await readFile(join(v2, 'kubepods/podu1/memory.max'), 'utf8')).toBe('67108864');
      expect(await readFile(join(v2, 'kubepods/cgroup.subtree_control'), 'utf8')).toBe('+cpu +memory');
      expect(await readFile(join(v2, 'kubepods/podu1/cpu.weight'), 'utf8')).toBe(String(sharesToWeight(256)));
    } finally {
      await rm(v1, { recursive: true, force: true });
      await rm(v2, { recursive: true, force: true });
    }
  });

  it('removes the pod cgroup from every v1 hierarchy and from v2, and reports one still in use', async () => {
    const p = pod('Burstable', [c('a', undefined, { cpu: '100m' })]);
    const v1 = await mkdtemp(join(tmpdir(), 'tkube-cg1-'));
    const v2 = await mkdtemp(join(tmpdir(), 'tkube-cg2-'));
    try {
      // runc makes the pod's directory in every hierarchy it nests containers in.
      for (const hierarchy of ['cpu', 'memory', 'pids']) {
        await mkdir(join(v1, hierarchy, 'kubepods/burstable/podu1'), { recursive: true });
      }
      await mkdir(join(v1, 'blkio'));
      await removePodCgroup(p, v1);
      for (const hierarchy of ['cpu', 'memory', 'pids']) {
        expect(existsSync(join(v1, hierarchy, 'kubepods/burstable/podu1'))).toBe(false);
        expect(existsSync(join(v1, hierarchy, 'kubepods/burstable'))).toBe(true);
      }

      await writeFile(join(v2, 'cgroup.controllers'), 'cpu memory');
      await mkdir(join(v2, 'kubepods/burstable/podu1/container-1'), { recursive: true });
      await expect(removePodCgroup(p, v2)).rejects.toMatchObject({ code: 'ENOTEMPTY' });
      await rm(join(v2, 'kubepods/burstable/podu1/container-1'), { recursive: true });
      await removePodCgroup(p, v2);
      expect(existsSync(join(v2, 'kubepods/burstable/podu1'))).toBe(false);
      // Gone already: nothing to do.
      await removePodCgroup(p, v2);
    } finally {
      await rm(v1, { recursive: true, force: true });
      await rm(v2, { recursive: true, force: true });
    }
  });
});
