// Shared by the network e2e suites: a cluster of real Docker nodes named under the proxy work's
// prefix, the busybox image loaded, backends that answer with their pod name (and, at
// /cgi-bin/ip, the client address they see), and clients run as pods whose logs are read.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Container, Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { NODES, PODS } from '../../../src/client/resources.js';
import { clientFromKubeconfig } from '../../../src/client/transports.js';
import type { Client, ResourceClient } from '../../../src/client/types.js';
import { tkube } from '../../support/cli.js';
import { sharedNodeImage } from '../docker/support.js';
import {
  BUSYBOX,
  buildBusyboxImage,
  containerLog,
  kubectlAndDown,
  waitFor,
} from '../kubelet/pods-support.js';

export interface NetworkCluster {
  readonly name: string;
  /** The cluster's private environment (TKUBE_HOME, KUBECONFIG) for running tkube on it. */
  readonly env: Record<string, string>;
  /** Node name → its address on the cluster network. */
  readonly nodeIPs: ReadonlyMap<string, string>;
  readonly client: Client;
  readonly pods: ResourceClient<Pod>;
  /** Loads an image of the host's Docker into every node. */
  loadImage(reference: string): Promise<void>;
  kubectl(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  down(): Promise<void>;
}

/**
 * `prefix` keeps suites of different work apart (`px` the proxy's, `lb` the load balancer's);
 * TKUBE_E2E_CLUSTER_PREFIX replaces it (several people running the same suite on one machine).
 */
export async function startNetworkCluster(
  suite: string,
  nodes = 2,
  prefix = 'px',
  /** More environment for `tkube up` (and so for the control plane it starts). */
  extraEnv: Record<string, string> = {},
): Promise<NetworkCluster> {
  const name = `${process.env.TKUBE_E2E_CLUSTER_PREFIX || prefix}-${suite}-${randomBytes(2).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), `tkube-e2e-${name}-`));
  const env = {
    TKUBE_HOME: join(dir, 'home'),
    KUBECONFIG: join(dir, 'kubeconfig'),
    HOME: dir,
    CI: 'true',
    PATH: process.env.PATH ?? '',
  };
  await Promise.all([sharedNodeImage(), buildBusyboxImage()]);
  const up = await tkube(['up', name, '--nodes', String(nodes)], { ...env, ...extraEnv });
  if (up.exitCode !== 0) throw new Error(`tkube up failed: ${up.stderr}`);
  const load = await tkube(['load', 'image', BUSYBOX, '--name', name], env);
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
  const client = clientFromKubeconfig(env.KUBECONFIG, `tkube-${name}`, 'e2e');
  const nodeList = await client.resource<Node>(NODES).list('');
  const nodeIPs = new Map(
    nodeList.items.map((node) => [
      node.metadata!.name!,
      node.status!.addresses!.find((address) => address.type === 'InternalIP')!.address,
    ]),
  );
  return {
    name,
    env,
    nodeIPs,
    client,
    pods: client.resource<Pod>(PODS),
    async loadImage(reference) {
      const result = await tkube(['load', 'image', reference, '--name', name], env);
      if (result.exitCode !== 0) throw new Error(`tkube load image failed: ${result.stderr}`);
    },
    ...kubectlAndDown(name, env, dir, client),
  };
}

/** A busybox httpd on port 8080 (named `http`): `/` answers the pod's name, `/cgi-bin/ip` the client's address. */
export function backendContainer(): Container {
  const script = [
    'busybox mkdir -p /www/cgi-bin',
    'echo "$POD_NAME" > /www/index.html',
    "echo '#!/bin/sh' > /www/cgi-bin/ip",
    // CGI headers end in CRLF: Node's HTTP parser refuses bare line feeds.
    String.raw`echo 'printf "Content-Type: text/plain\r\n\r\n%s\n" "$REMOTE_ADDR"' >> /www/cgi-bin/ip`,
    'busybox chmod +x /www/cgi-bin/ip',
    'exec httpd -f -p 8080 -h /www',
  ].join(' && ');
  return {
    name: 'web',
    image: BUSYBOX,
    imagePullPolicy: 'Never',
    command: ['sh', '-c', script],
    env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    ports: [{ name: 'http', containerPort: 8080 }],
    readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
  };
}

/**
 * Runs `script` in a pod on `node` until it exits and returns its output. Clients use
 * `busybox wget` (the image links only a few applets).
 */
export async function runClient(
  cluster: NetworkCluster,
  node: string,
  name: string,
  script: string,
  timeoutMs = 120_000,
): Promise<string> {
  await cluster.pods.create({
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: node,
      restartPolicy: 'Never',
      containers: [
        { name: 'client', image: BUSYBOX, imagePullPolicy: 'Never', command: ['sh', '-c', script] },
      ],
    },
  });
  const pod = await waitFor(
    () => cluster.pods.get('default', name),
    (pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
    timeoutMs,
    `client pod ${name}`,
  );
  return containerLog(pod, 'client');
}

/**
 * Waits until every node's iptables holds a rule matching `pattern` (as iptables-save prints it):
 * clients started before the proxy's next sync would otherwise race it.
 */
export async function waitForRules(
  cluster: NetworkCluster,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<void> {
  for (const node of cluster.nodeIPs.keys()) {
    await waitFor(
      async () => (await execa('docker', ['exec', node, 'iptables-save'], { reject: false })).stdout,
      (saved) => pattern.test(saved),
      timeoutMs,
      `rules matching ${pattern} on ${node}`,
    );
  }
}

/** A GET of `url` given up after 3 s (this busybox's `wget -T` crashes, so `timeout` bounds it). */
export function get(url: string): string {
  return `busybox timeout 3 busybox wget -q -O - ${url}`;
}

/** A shell loop of `count` GETs of `url`, one line per answer (`ERR` for a failure). */
export function getLoop(url: string, count: number): string {
  return `i=0; while [ $i -lt ${count} ]; do ${get(url)} 2>/dev/null || echo ERR; i=$((i+1)); done`;
}
