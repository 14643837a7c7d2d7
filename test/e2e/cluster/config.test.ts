// `tkube up --config FILE`: the config's nodes, roles, labels, port mappings, mounts and pod
// subnet reach the node containers and the Node objects; a bad file is one clear error.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';
import { docker, sharedNodeImage } from '../docker/support.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-e2e-config-'));
const env = {
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  HOME: dir,
  CI: 'true',
  PATH: process.env.PATH ?? '',
};
const cluster = 'e2e-config';

beforeAll(async () => {
  await sharedNodeImage();
}, 300_000);

afterAll(async () => {
  await tkube(['down', cluster], env);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('tkube up --config', () => {
  it('creates the nodes the config describes', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    writeFileSync(join(shared, 'hello.txt'), 'from the host\n');
    const config = join(dir, 'cluster.yaml');
    writeFileSync(
      config,
      `apiVersion: tkube.dev/v1alpha1
kind: Cluster
name: ${cluster}
nodes:
  - role: control-plane
    labels: {ingress-ready: "true"}
    extraPortMappings:
      - {containerPort: 30080, hostPort: 0, listenAddress: 127.0.0.1}
  - role: worker
    labels: {tier: backend}
    extraMounts:
      - {hostPath: ${shared}, containerPath: /shared, readOnly: true}
networking:
  podSubnet: 10.100.0.0/16
`,
    );
    const up = await tkube(['up', '--config', config], env);
    expect(up.exitCode, up.stderr).toBe(0);
    const nodes = await execa('kubectl', ['--context', `tkube-${cluster}`, 'get', 'nodes', '-o', 'json'], {
      env,
    });
    const list = JSON.parse(nodes.stdout) as {
      items: { metadata: { name: string; labels: Record<string, string> }; spec: { podCIDR: string } }[];
    };
    expect(list.items.map((node) => node.metadata.name)).toEqual([`${cluster}-node-0`, `${cluster}-node-1`]);
    const [first, second] = list.items;
    expect(first!.metadata.labels).toMatchObject({
      'node-role.kubernetes.io/control-plane': '',
      'ingress-ready': 'true',
    });
    expect(second!.metadata.labels.tier).toBe('backend');
    expect(second!.metadata.labels).not.toHaveProperty('node-role.kubernetes.io/control-plane');
    for (const node of list.items) expect(node.spec.podCIDR).toMatch(/^10\.100\.\d+\.0\/24$/);

    const controlPlane = await docker.getContainer(`${cluster}-node-0`).inspect();
    const binding = controlPlane.NetworkSettings.Ports['30080/tcp'];
    expect(binding?.[0]?.HostIp).toBe('127.0.0.1');
    expect(Number(binding?.[0]?.HostPort)).toBeGreaterThan(0);
    const mounted = await execa('docker', ['exec', `${cluster}-node-1`, 'cat', '/shared/hello.txt']);
    expect(mounted.stdout).toBe('from the host');
  }, 180_000);

  it('rejects a bad config file with every problem in one line, creating nothing', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'apiVersion: tkube.dev/v1alpha1\nkind: Cluster\nnodes: [{role: boss}]\n');
    const up = await tkube(['up', 'e2e-bad', '--config', config], env);
    expect(up.exitCode).toBe(1);
    expect(up.stderr.trim().split('\n')).toHaveLength(1);
    expect(up.stderr).toContain(
      `invalid cluster config ${config}: nodes[0].role: must be "control-plane" or "worker"`,
    );
  });
});
