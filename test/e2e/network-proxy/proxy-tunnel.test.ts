// pods/proxy, services/proxy, nodes/proxy and `kubectl logs` on real two-node clusters: one as
// `tkube up` makes it (pods reached through their node's tunnel, kubelets directly) and one with
// the apiserver's tunnel forced (TKUBE_APISERVER_TUNNEL=always: every connection from the control
// plane into a node goes through the tunnel its agent holds open). A busybox httpd pod serves a
// page on 8080 behind the Service `web` (port 80), and an upgrade echo on 9090 (port 90).
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/api/types/core-v1.generated.js';
import type { TunnelMode } from '../../../src/apiserver/tunnel/dialer.js';
import { ENDPOINTS } from '../../../src/client/resources.js';
import {
  BUSYBOX,
  isReady,
  type KubeletCluster,
  startKubeletCluster,
  waitFor,
  waitForPod,
} from '../kubelet/pods-support.js';

/** An upgrade server in busybox: reads the request head, answers 101, then `cat` echoes. */
const UPGRADE_ECHO = [
  `printf '%s\\n' 'while IFS= read -r line; do case "$line" in ""|"$(printf "\\r")") break;; esac; done'`,
  ` 'printf "HTTP/1.1 101 Switching Protocols\\r\\nConnection: Upgrade\\r\\nUpgrade: echo\\r\\n\\r\\n"'`,
  ` 'exec cat' > /tmp/up.sh; exec nc -ll -p 9090 -e sh /tmp/up.sh`,
].join('');

/** What comes back for an upgrade request for `path` sent to `kubectl proxy` at `port`, after `payload`. */
async function upgradeThroughKubectlProxy(port: number, path: string, payload: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  let received = '';
  let sent = false;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    if (!sent && received.includes('\r\n\r\n')) {
      sent = true;
      socket.write(payload);
    }
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
  try {
    return await waitFor(
      async () => received,
      (text) => text.includes(payload) || (text.includes('\r\n\r\n') && !text.startsWith('HTTP/1.1 101')),
      20_000,
      `the upgrade through ${path}`,
    );
  } finally {
    socket.destroy();
  }
}

const manifests = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'httpd',
            image: BUSYBOX,
            command: [
              'sh',
              '-c',
              'echo hello-web > /tmp/index.html; echo serving; exec httpd -f -p 8080 -h /tmp',
            ],
            ports: [{ containerPort: 8080, name: 'http' }],
          },
          {
            // Answers any request with 101 Switching Protocols, then echoes the stream.
            name: 'upgrade',
            image: BUSYBOX,
            command: ['sh', '-c', UPGRADE_ECHO],
            ports: [{ containerPort: 9090, name: 'upgrade' }],
          },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'upgrade', port: 90, targetPort: 9090 },
        ],
      },
    },
  ],
};

describe.each<TunnelMode>(['auto', 'always'])('with the apiserver tunnel %s', (mode) => {
  let cluster: KubeletCluster;
  beforeAll(async () => {
    cluster = await startKubeletCluster(`tn-${mode}`, 2, { TKUBE_APISERVER_TUNNEL: mode });
    const applied = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify(manifests));
    if (applied.exitCode !== 0) throw new Error(applied.stderr);
    await waitForPod(cluster, 'web', isReady, 120_000);
    await waitFor(
      () => cluster.client.resource<Endpoints>(ENDPOINTS).get('default', 'web'),
      (endpoints) => (endpoints.subsets?.[0]?.addresses?.length ?? 0) > 0,
      60_000,
      'endpoints of web',
    );
  }, 600_000);

  afterAll(async () => {
    await cluster?.down();
  }, 120_000);

  it('has a tunnel from every node', async () => {
    const log = await readFile(
      join(cluster.home, 'clusters', cluster.name, 'logs', 'controlplane.log'),
      'utf8',
    );
    for (const node of cluster.nodes) expect(log).toContain(`apiserver: tunnel from node ${node} connected`);
  });

  it('answers pods/<pod>:8080/proxy/ and services/web:80/proxy/', async () => {
    for (const path of [
      '/api/v1/namespaces/default/pods/web:8080/proxy/',
      '/api/v1/namespaces/default/pods/web/proxy/index.html',
      '/api/v1/namespaces/default/services/web:80/proxy/',
      '/api/v1/namespaces/default/services/http:web:http/proxy/',
    ]) {
      const got = await cluster.kubectl(['get', '--raw', path]);
      expect(got.exitCode, `${path}: ${got.stderr}`).toBe(0);
      expect(got.stdout).toBe('hello-web');
    }
    const missing = await cluster.kubectl([
      'get',
      '--raw',
      '/api/v1/namespaces/default/services/web:81/proxy/',
    ]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toBe(
      'Error from server (ServiceUnavailable): no service port 81 found for service "web"',
    );
  });

  it('serves kubectl logs and nodes/proxy', async () => {
    const logs = await cluster.kubectl(['logs', 'web']);
    expect(logs.exitCode, logs.stderr).toBe(0);
    expect(logs.stdout).toBe('serving');
    for (const node of cluster.nodes) {
      const healthz = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/healthz`]);
      expect(healthz.exitCode, healthz.stderr).toBe(0);
      expect(healthz.stdout).toBe('ok');
    }
  });

  it('passes upgrade requests through pods/proxy and services/proxy, as kubectl proxy sends them', async () => {
    const proxy = execa(
      'kubectl',
      [
        '--kubeconfig',
        join(cluster.home, '..', 'kubeconfig'),
        '--context',
        `tkube-${cluster.name}`,
        'proxy',
        '--port=0',
      ],
      { reject: false },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        proxy.stdout?.on('data', (chunk: Buffer) => {
          const found = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(chunk.toString('utf8'));
          if (found) resolve(Number(found[1]));
        });
        proxy.once('exit', () => reject(new Error('kubectl proxy exited')));
      });
      for (const path of [
        '/api/v1/namespaces/default/pods/web:9090/proxy/chat',
        '/api/v1/namespaces/default/services/web:upgrade/proxy/chat',
      ]) {
        const answer = await upgradeThroughKubectlProxy(port, path, `ping-${path.split('/')[4]}`);
        expect(answer.startsWith('HTTP/1.1 101 Switching Protocols'), answer).toBe(true);
        expect(answer).toContain(`ping-${path.split('/')[4]}`);
      }
    } finally {
      proxy.kill();
    }
  });

  it('keeps a followed log open', async () => {
    // `kubectl logs -f` stays connected while the container runs: the stream is not cut.
    // (startKubeletCluster keeps the kubeconfig beside TKUBE_HOME.)
    const follow = await execa(
      'kubectl',
      [
        '--kubeconfig',
        join(cluster.home, '..', 'kubeconfig'),
        '--context',
        `tkube-${cluster.name}`,
        'logs',
        '-f',
        'web',
      ],
      { reject: false, timeout: 3_000 },
    );
    expect(follow.timedOut).toBe(true);
    expect(follow.stdout).toBe('serving');
  });

  it('went through the tunnels as the mode says (after the requests above)', async () => {
    const metrics = await cluster.kubectl(['get', '--raw', '/metrics']);
    const dials = (node: string) =>
      Number(
        new RegExp(`tkube_apiserver_tunnel_dials_total\\{node="${node}",result="success"\\} (\\d+)`).exec(
          metrics.stdout,
        )?.[1] ?? 0,
      );
    const podNode = (await cluster.pods.get('default', 'web')).spec?.nodeName ?? '';
    // Pods are beyond the host's routes: through their node's tunnel in either mode.
    expect(dials(podNode)).toBeGreaterThan(0);
    // Kubelets (logs, nodes/proxy of every node) through the tunnel only when forced.
    const otherNode = cluster.nodes.find((node) => node !== podNode)!;
    if (mode === 'always') expect(dials(otherNode)).toBeGreaterThan(0);
    else expect(dials(otherNode)).toBe(0);
  });
});
