// pods/proxy, services/proxy, nodes/proxy and `kubectl logs` on real two-node clusters: one as
// `tkube up` makes it (pods reached through their node's tunnel, kubelets directly) and one with
// the apiserver's tunnel forced (TKUBE_APISERVER_TUNNEL=always: every connection from the control
// plane into a node goes through the tunnel its agent holds open). A busybox httpd pod serves a
// page on 8080 behind the Service `web` (port 80).
import { readFile } from 'node:fs/promises';
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
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
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
