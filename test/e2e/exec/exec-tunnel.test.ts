// `kubectl exec` with the apiserver reaching the kubelet only through the node's tunnel
// (TKUBE_APISERVER_TUNNEL=always), with kubectl 1.33 (a v5 WebSocket, translated to SPDY in the
// apiserver) and the exit code.
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUSYBOX,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitForPod,
} from '../kubelet/pods-support.js';

let cluster: KubeletCluster;

beforeAll(async () => {
  cluster = await startKubeletCluster('ext', 1, { TKUBE_APISERVER_TUNNEL: 'always' });
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'shell', {
      containers: [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }],
    }),
  );
  await waitForPod(cluster, 'shell', isRunning, 120_000);
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

/** tkube_apiserver_tunnel_dials_total{result="success"} for the node. */
async function tunnelDials(): Promise<number> {
  const metrics = await cluster.kubectl(['get', '--raw', '/metrics']);
  const node = cluster.nodes[0]!;
  const found = new RegExp(
    `tkube_apiserver_tunnel_dials_total\\{node="${node}",result="success"\\} (\\d+)`,
  ).exec(metrics.stdout);
  return Number(found?.[1] ?? 0);
}

describe('kubectl exec through the node tunnel', () => {
  it('runs the command with its output, stdin and exit code', async () => {
    const before = await tunnelDials();
    const result = await execa(
      'kubectl',
      ['--context', `tkube-${cluster.name}`, 'exec', '-i', 'shell', '--', 'sh', '-c', 'cat; exit 4'],
      {
        env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
        input: 'through\n',
        reject: false,
        timeout: 60_000,
      },
    );
    expect(result.stdout).toBe('through');
    expect(result.stderr).toContain('command terminated with exit code 4');
    expect(result.exitCode).toBe(4);
    expect(await tunnelDials()).toBeGreaterThan(before);
  });
});
