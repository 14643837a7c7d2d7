import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, e2eClusterName, e2eSubnet, provider, sharedNodeImage } from './support.js';

const cluster = e2eClusterName('nodes');
const net = e2eSubnet(11);

async function leftovers(name: string): Promise<number> {
  const filters = { label: [`dev.tkube.cluster=${name}`] };
  const [containers, volumes, networks] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listNetworks({ filters }),
  ]);
  return containers.length + (volumes.Volumes ?? []).length + networks.length;
}

beforeAll(async () => {
  const image = await sharedNodeImage();
  await provider.ensureNetwork({ cluster, subnet: net.subnet, gateway: net.gateway });
  await Promise.all(
    [0, 1].map((index) =>
      provider.createNode({
        cluster,
        index,
        role: index === 0 ? 'control-plane' : 'worker',
        image: image.tag,
        ip: net.ip(10 + index),
        env: { TKUBE_E2E: 'yes' },
      }),
    ),
  );
  await Promise.all([0, 1].map((index) => provider.waitForContainerd(`${cluster}-node-${index}`)));
}, 120_000);

afterAll(async () => {
  await provider.removeCluster(cluster);
});

describe('docker provider: nodes', () => {
  it('lists the nodes from their labels, with fixed IPs and roles', async () => {
    const nodes = await provider.listNodes(cluster);
    expect(nodes.map(({ name, role, index, ip, state }) => ({ name, role, index, ip, state }))).toEqual([
      { name: `${cluster}-node-0`, role: 'control-plane', index: 0, ip: net.ip(10), state: 'running' },
      { name: `${cluster}-node-1`, role: 'worker', index: 1, ip: net.ip(11), state: 'running' },
    ]);
    expect(await provider.listClusters()).toContain(cluster);
  });

  it('runs containerd in each node, and the nodes reach each other', async () => {
    for (const [from, to] of [
      [0, 11],
      [1, 10],
    ] as const) {
      const node = `${cluster}-node-${from}`;
      const version = await provider.exec(node, ['ctr', 'version']);
      expect(version.exitCode).toBe(0);
      expect(version.stdout).toMatch(/Server:\s+Version:/);
      const ping = await provider.exec(node, ['ping', '-c', '1', '-W', '2', net.ip(to)]);
      expect(ping.exitCode, ping.stdout + ping.stderr).toBe(0);
    }
  });

  it('execs with stdin, environment and exit codes; copies files, also into tmpfs', async () => {
    const node = `${cluster}-node-1`;
    const echoed = await provider.exec(
      node,
      ['sh', '-c', 'cat; echo "-$TKUBE_E2E-$EXTRA"; echo oops >&2; exit 7'],
      {
        input: 'from stdin\n',
        env: { EXTRA: 'x' },
      },
    );
    expect(echoed).toEqual({ exitCode: 7, stdout: 'from stdin\n-yes-x\n', stderr: 'oops\n' });

    // A command that stops reading early: exec returns, with what it printed.
    const early = await provider.exec(node, ['head', '-c', '5'], {
      input: Readable.from([Buffer.alloc(8 << 20, 97)]),
    });
    expect(early).toEqual({ exitCode: 0, stdout: 'aaaaa', stderr: '' });

    await provider.copyFile(node, '/opt/tkube/e2e/file.txt', 'hello\n', { mode: 0o755 });
    await provider.copyFile(node, '/run/tkube/e2e.bin', new Uint8Array([0, 1, 2, 255]));
    const listed = await provider.exec(node, [
      'sh',
      '-c',
      'stat -c %a /opt/tkube/e2e/file.txt; cat /opt/tkube/e2e/file.txt; od -An -tu1 /run/tkube/e2e.bin',
    ]);
    expect(listed.stdout.split('\n').map((line) => line.trim())).toEqual([
      '755',
      'hello',
      '0   1   2 255',
      '',
    ]);
  });

  it('prepared the node: writable cgroups, sysctls, shared root, nft iptables', async () => {
    const script = [
      'grep -c " /sys/fs/cgroup/[^ ]* cgroup rw" /proc/self/mounts || grep -c " /sys/fs/cgroup cgroup2 rw" /proc/self/mounts',
      'cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/bridge/bridge-nf-call-iptables',
      'grep -E "^[0-9]+ [0-9]+ [^ ]+ / / " /proc/self/mountinfo | grep -c shared:',
      'readlink /usr/sbin/iptables',
    ].join('; ');
    const result = await provider.exec(`${cluster}-node-0`, ['sh', '-c', script]);
    const [cgroups, forward, bridge, shared, iptables] = result.stdout.trim().split('\n');
    expect(Number(cgroups)).toBeGreaterThan(0);
    expect([forward, bridge, shared, iptables]).toEqual(['1', '1', '1', 'xtables-nft-multi']);
  });

  it('starts the agent once it is copied in, stops promptly, and comes back after a restart', async () => {
    const node = `${cluster}-node-1`;
    const agentRuns = async (count: number) => {
      const script = `i=0; until [ "$(wc -l </var/log/e2e-agent-runs 2>/dev/null || echo 0)" -ge ${count} ]; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done`;
      return (await provider.exec(node, ['sh', '-c', script])).exitCode;
    };
    await provider.copyFile(
      node,
      '/opt/tkube/agent/start',
      '#!/bin/sh\necho run >>/var/log/e2e-agent-runs\nexec sleep 1000\n',
      {
        mode: 0o755,
      },
    );
    expect(await agentRuns(1)).toBe(0);

    const started = Date.now();
    // A 5 s grace period: only a node that forwards SIGTERM stops well before it.
    await docker.getContainer(node).restart({ t: 5 });
    expect(Date.now() - started).toBeLessThan(4_000);
    await provider.waitForContainerd(node);
    const [, worker] = await provider.listNodes(cluster);
    expect(worker).toMatchObject({ ip: net.ip(11), state: 'running' });
    const images = await provider.exec(node, ['ctr', '--namespace', 'k8s.io', 'images', 'ls', '-q']);
    expect(images.stdout.split('\n')).toContain('tkube.local/pause:1');
    expect(await agentRuns(2)).toBe(0);
  });

  it('waits for containerd through a run directory on the host, and fails at once when the node cannot start', async () => {
    const image = await sharedNodeImage();
    const runDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'tkube-e2e-run-')));
    try {
      const [healthy, failing] = [2, 3].map((index, i) => ({
        cluster,
        index,
        role: 'worker' as const,
        image: image.tag,
        ip: net.ip(10 + index),
        mounts: [{ hostPath: runDirs[i]!, containerPath: '/run/tkube' }],
      }));
      await provider.createNode(healthy!);
      // The entrypoint refuses an unknown iptables mode and exits; the engine restarts it.
      await provider.createNode({ ...failing!, env: { TKUBE_IPTABLES_MODE: 'bogus' } });

      await provider.waitForContainerd(`${cluster}-node-2`, { runDirOnHost: runDirs[0] });
      expect(existsSync(join(runDirs[0]!, 'containerd.ready'))).toBe(true);

      const started = Date.now();
      const failure = await provider
        .waitForContainerd(`${cluster}-node-3`, { runDirOnHost: runDirs[1] })
        .then(
          () => 'resolved',
          (error: Error) => error.message,
        );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(failure).toMatch(
        /^containerd in node .*-node-3 did not start: its container (was restarted|is exited)/,
      );
      expect(failure).toContain('TKUBE_IPTABLES_MODE must be nft or legacy, not bogus');
      expect(existsSync(join(runDirs[1]!, 'containerd.ready'))).toBe(false);
    } finally {
      await Promise.all([2, 3].map((index) => provider.removeNode(`${cluster}-node-${index}`)));
      for (const dir of runDirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ensureNetwork is idempotent and refuses a different subnet', async () => {
    const again = await provider.ensureNetwork({ cluster, subnet: net.subnet, gateway: net.gateway });
    expect(again).toMatchObject({ name: `tkube-${cluster}`, subnet: net.subnet, gateway: net.gateway });
    await expect(
      provider.ensureNetwork({ cluster, subnet: '10.213.99.0/24', gateway: '10.213.99.1' }),
    ).rejects.toThrow(/exists with subnet 10\.213\.11\.0\/24/);
  });
});

describe('docker provider: removal', () => {
  it('removes a half-created cluster (network and a volume, no container) and is idempotent', async () => {
    const name = e2eClusterName('half');
    const half = e2eSubnet(12);
    await provider.ensureNetwork({ cluster: name, subnet: half.subnet, gateway: half.gateway });
    await docker.createVolume({ Name: `${name}-node-0-containerd`, Labels: { 'dev.tkube.cluster': name } });
    expect(await leftovers(name)).toBe(2);

    const removed = await provider.removeCluster(name);
    expect(removed).toEqual({
      containers: [],
      volumes: [`${name}-node-0-containerd`],
      networks: [`tkube-${name}`],
    });
    expect(await leftovers(name)).toBe(0);
    expect(await provider.removeCluster(name)).toEqual({ containers: [], volumes: [], networks: [] });
  });

  it('removes running nodes with their volumes and network', async () => {
    const name = e2eClusterName('rm');
    const subnet = e2eSubnet(13);
    const image = await sharedNodeImage();
    await provider.ensureNetwork({ cluster: name, subnet: subnet.subnet, gateway: subnet.gateway });
    await provider.createNode({
      cluster: name,
      index: 0,
      role: 'control-plane',
      image: image.tag,
      ip: subnet.ip(10),
    });
    // The container, its containerd and local-path volumes, the network.
    expect(await leftovers(name)).toBe(4);

    const removed = await provider.removeCluster(name);
    expect({ ...removed, volumes: [...removed.volumes].sort() }).toEqual({
      containers: [`${name}-node-0`],
      volumes: [`${name}-node-0-containerd`, `${name}-node-0-local-path`],
      networks: [`tkube-${name}`],
    });
    expect(await leftovers(name)).toBe(0);
  });
});
