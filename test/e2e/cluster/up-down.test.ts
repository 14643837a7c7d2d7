// `tkube up --nodes N` on the real Docker engine, driven through the built CLI as a user runs
// it: nodes Ready with distinct pod CIDRs and routes to each other, a restarted node comes back
// with its routes, images load into every node, two clusters live side by side, a failed create
// rolls back, and `tkube down` leaves nothing behind.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBundleDir } from '../../../src/cluster/nodes/agent-install.js';
import { tkube } from '../../support/cli.js';
import { docker, sharedNodeImage } from '../docker/support.js';
import { type NodeView, parseNodeViews } from './node-view.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-e2e-cluster-'));
const env = {
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  HOME: dir,
  CI: 'true',
  PATH: process.env.PATH ?? '',
};
const created: string[] = [];

async function kubectl(context: string, args: string[]) {
  const result = await execa('kubectl', ['--context', context, ...args], {
    env,
    reject: false,
    timeout: 30_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

async function nodeExec(node: string, command: string[]): Promise<string> {
  const result = await execa('docker', ['exec', node, ...command], { reject: false });
  return result.stdout;
}

async function nodesOf(cluster: string): Promise<NodeView[]> {
  const out = await kubectl(`tkube-${cluster}`, ['get', 'nodes', '-o', 'json']);
  expect(out.exitCode, out.stderr).toBe(0);
  return parseNodeViews(out.stdout);
}

/** The pod routes a node holds: pod CIDR → gateway. */
async function podRoutes(node: string): Promise<Record<string, string>> {
  const routes = JSON.parse(await nodeExec(node, ['ip', '-j', 'route', 'show'])) as {
    dst: string;
    gateway?: string;
  }[];
  return Object.fromEntries(
    routes
      .filter((route) => route.dst.startsWith('10.244.') && route.gateway)
      .map((route) => [route.dst, route.gateway!]),
  );
}

function expectFullMesh(nodes: NodeView[], routes: Record<string, Record<string, string>>): void {
  for (const node of nodes) {
    const expected = Object.fromEntries(
      nodes.filter((peer) => peer.name !== node.name).map((peer) => [peer.podCIDR, peer.ip]),
    );
    expect(routes[node.name], node.name).toEqual(expected);
  }
}

async function leftovers(cluster: string): Promise<string[]> {
  const filter = { label: [`dev.tkube.cluster=${cluster}`] };
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers({ all: true, filters: filter }),
    docker.listNetworks({ filters: filter }),
    docker.listVolumes({ filters: filter }),
  ]);
  return [
    ...containers.map((c) => `container ${c.Names[0]}`),
    ...networks.map((n) => `network ${n.Name}`),
    ...(volumes.Volumes ?? []).map((v) => `volume ${v.Name}`),
  ];
}

beforeAll(async () => {
  await sharedNodeImage();
}, 300_000);

afterAll(async () => {
  for (const name of created) await tkube(['down', name], env);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('tkube up with Docker nodes', () => {
  const cluster = 'e2e-three';

  it('brings up three Ready nodes with distinct pod CIDRs and routes to each other', async () => {
    created.push(cluster);
    const up = await tkube(['up', cluster, '--nodes', '3'], env);
    expect(up.exitCode, up.stderr).toBe(0);
    const nodes = await nodesOf(cluster);
    expect(nodes.map((n) => n.name)).toEqual([`${cluster}-node-0`, `${cluster}-node-1`, `${cluster}-node-2`]);
    expect(nodes.every((n) => n.ready)).toBe(true);
    expect(new Set(nodes.map((n) => n.podCIDR)).size).toBe(3);
    for (const node of nodes) expect(node.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
    const routes = Object.fromEntries(
      await Promise.all(nodes.map(async (n) => [n.name, await podRoutes(n.name)])),
    );
    expectFullMesh(nodes, routes);
    const roles = await kubectl(`tkube-${cluster}`, [
      'get',
      'nodes',
      '-l',
      'node-role.kubernetes.io/control-plane',
      '-o',
      'name',
    ]);
    expect(roles.stdout.trim()).toBe(`node/${cluster}-node-0`);
    const leases = await kubectl(`tkube-${cluster}`, [
      'get',
      'leases',
      '-n',
      'kube-node-lease',
      '-o',
      'name',
    ]);
    expect(leases.stdout.trim().split('\n').sort()).toEqual(
      nodes.map((n) => `lease.coordination.k8s.io/${n.name}`),
    );
    // The runtime as CRI's Version reports it: containerd's own version, as `containerd --version` prints it.
    const runtime = await kubectl(`tkube-${cluster}`, [
      'get',
      'node',
      `${cluster}-node-1`,
      '-o',
      'jsonpath={.status.nodeInfo.containerRuntimeVersion}',
    ]);
    const containerd = (await nodeExec(`${cluster}-node-1`, ['containerd', '--version'])).split(' ')[2];
    expect(runtime.stdout).toBe(`containerd://${containerd}`);
  }, 180_000);

  it("starts each agent on the build's V8 code cache: V8 takes it, so the agent never writes its own", async () => {
    const built = readFileSync(join(agentBundleDir(), 'agent.cjs.cache'));
    const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
    // A rejected cache is written again 3 s after the agent starts.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    for (const index of [0, 1, 2]) {
      const node = `${cluster}-node-${index}`;
      const inNode = await execa('docker', ['exec', node, 'sha256sum', '/opt/tkube/agent/agent.cjs.cache']);
      expect(inNode.stdout.split(' ')[0], node).toBe(sha(built));
    }
  });

  it("mounts each node's agent files from the cluster's state directory, the configuration read-only", async () => {
    const node = `${cluster}-node-2`;
    const onHost = join(env.TKUBE_HOME, 'clusters', cluster, 'nodes', node);
    expect(await nodeExec(node, ['cat', '/etc/tkube/agent.json'])).toBe(
      readFileSync(join(onHost, 'etc', 'agent.json'), 'utf8').trim(),
    );
    expect(JSON.parse(readFileSync(join(onHost, 'etc', 'agent.json'), 'utf8'))).toMatchObject({
      nodeName: node,
    });
    const write = await execa('docker', ['exec', node, 'touch', '/etc/tkube/agent.json'], { reject: false });
    expect(write.exitCode).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system/);
  });

  it('restores a restarted node: Ready again, routes back', async () => {
    const node = `${cluster}-node-1`;
    await execa('docker', ['restart', node]);
    const deadline = Date.now() + 60_000;
    let nodes: NodeView[] = [];
    let routes: Record<string, string> = {};
    while (Date.now() < deadline) {
      nodes = await nodesOf(cluster);
      routes = await podRoutes(node);
      if (nodes.every((n) => n.ready) && Object.keys(routes).length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(nodes.every((n) => n.ready)).toBe(true);
    expect(routes).toEqual(
      Object.fromEntries(nodes.filter((peer) => peer.name !== node).map((peer) => [peer.podCIDR, peer.ip])),
    );
    const agentLog = await nodeExec(node, ['cat', '/var/log/tkube-agent.log']);
    expect(agentLog.match(/registered/g)?.length).toBe(2);
  }, 120_000);

  it('loads a locally built image into every node, and skips nodes that hold it', async () => {
    const image = 'tkube-e2e/loaded:1';
    const { id } = await sharedNodeImage();
    await execa('docker', ['tag', id, image]);
    const first = await tkube(['load', 'image', image, '--name', cluster, '-o', 'json'], env);
    expect(first.exitCode, first.stderr).toBe(0);
    const loaded = JSON.parse(first.stdout) as {
      nodes: { node: string; imported: string[]; skipped: string[] }[];
    };
    expect(loaded.nodes.map((n) => n.imported)).toEqual([[image], [image], [image]]);
    for (let i = 0; i < 3; i++) {
      const listed = await nodeExec(`${cluster}-node-${i}`, ['ctr', '-n', 'k8s.io', 'images', 'ls', '-q']);
      expect(listed).toContain('tkube-e2e/loaded:1');
    }
    const second = await tkube(['load', 'image', image, '--name', cluster, '-o', 'json'], env);
    const again = JSON.parse(second.stdout) as { nodes: { skipped: string[] }[] };
    expect(again.nodes.map((n) => n.skipped)).toEqual([[image], [image], [image]]);
  }, 300_000);

  it('exports the control plane, agent and containerd logs and node details', async () => {
    const out = join(dir, 'artifacts');
    const exported = await tkube(['export', 'logs', out, '--name', cluster, '-o', 'json'], env);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const { files } = JSON.parse(exported.stdout) as { files: string[] };
    for (const file of [
      'controlplane.log',
      'cluster.json',
      `${cluster}-node-0/inspect.json`,
      `${cluster}-node-2/var/log/tkube-agent.log`,
      `${cluster}-node-2/var/log/containerd.log`,
    ]) {
      expect(files).toContain(file);
    }
    expect(readFileSync(join(out, 'controlplane.log'), 'utf8')).toContain('control plane serving on port');
    expect(readFileSync(join(out, `${cluster}-node-1/var/log/tkube-agent.log`), 'utf8')).toContain(
      'registered',
    );
    const inspect = JSON.parse(readFileSync(join(out, `${cluster}-node-0/inspect.json`), 'utf8')) as {
      Config: { Labels: Record<string, string> };
    };
    expect(inspect.Config.Labels['dev.tkube.cluster']).toBe(cluster);
  }, 60_000);

  it('keeps a second cluster apart, and down removes every trace of each', async () => {
    const other = 'e2e-other';
    created.push(other);
    const up = await tkube(['up', other, '--nodes', '1'], env);
    expect(up.exitCode, up.stderr).toBe(0);
    const mine = await nodesOf(cluster);
    const theirs = await nodesOf(other);
    expect(theirs.map((n) => n.name)).toEqual([`${other}-node-0`]);
    expect(theirs[0]!.ready).toBe(true);
    expect(mine.map((n) => n.ip)).not.toContain(theirs[0]!.ip);

    const down = await tkube(['down', other], env);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await leftovers(other)).toEqual([]);
    expect(readFileSync(env.KUBECONFIG, 'utf8')).not.toContain(`tkube-${other}`);
    expect((await nodesOf(cluster)).every((n) => n.ready)).toBe(true);

    const downFirst = await tkube(['down', cluster], env);
    expect(downFirst.exitCode, downFirst.stderr).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect(readFileSync(env.KUBECONFIG, 'utf8')).not.toContain(`tkube-${cluster}`);
    const listed = await tkube(['list'], env);
    expect(listed.stderr).toContain('No clusters found.');
  }, 120_000);

  it('rolls back a failed create, saying which step failed', async () => {
    const failing = 'e2e-fails';
    const up = await tkube(['up', failing, '--nodes', '1', '--image', 'tkube.local/does-not-exist:0'], env);
    expect(up.exitCode).toBe(1);
    expect(up.stderr).toMatch(/^Error: failed to create cluster "e2e-fails": .*does-not-exist/m);
    expect(await leftovers(failing)).toEqual([]);
    const listed = await tkube(['list'], env);
    expect(listed.stderr).toContain('No clusters found.');
  }, 120_000);
});
